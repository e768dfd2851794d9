import ImporterModel
import NIOCore

/// COPY's text format: one line per row, columns separated by tabs, `\N` for NULL, backslash,
/// tab, newline and carriage return escaped. Each value reads back exactly: integers in decimal;
/// reals in Swift's shortest round-trip form (PostgreSQL reads `inf`, `-inf` and `nan` too), or,
/// in a `double precision` column, in the shortest decimal with at most six fraction digits that
/// reads back to the same double when there is one (`DecimalDouble`).
///
/// Hand-written for speed: a first load encodes every value of the feed here. Bytes go to an
/// array (no per-byte capacity and exclusivity checks as `ByteBuffer` writes do), text is copied
/// whole unless it holds a byte to escape, and integers and short decimals are written without
/// an intermediate `String`: faster than `Double.description` and `ByteBuffer`
/// (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
struct CopyText {
    private var bytes: [UInt8] = []
    private var rowOpen = false
    /// A text value held the NUL character, which PostgreSQL text cannot hold (it is left out).
    private(set) var sawNUL = false

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The rows written so far, for `COPY … FROM STDIN`.
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }
    var count: Int { bytes.count }

    /// One row of plain values (reals in their shortest form).
    mutating func appendRow(_ values: [Value]) {
        for value in values { append(value) }
        endRow()
    }

    /// Appends the next column of the current row; `double` says the column is `double precision`.
    mutating func append(_ value: Value, double: Bool = false) {
        if rowOpen { bytes.append(UInt8(ascii: "\t")) }
        rowOpen = true
        switch value {
        case .null:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "N"))
        case .integer(let integer): appendInteger(integer)
        case .real(let real):
            if double, let decimal = DecimalDouble(real) { appendDecimal(decimal) } else { bytes.append(contentsOf: real.description.utf8) }
        case .text(let text): appendEscaped(text)
        }
    }

    /// The batch's values of `record`, then the row's end; `doubles[position]`: the column is
    /// `double precision`.
    mutating func appendRecord(_ record: Int, of batch: RecordBatch, doubles: [Bool]) {
        for position in 0..<batch.width { append(batch.publicValue(record: record, position: position), double: doubles[position]) }
        endRow()
    }

    mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
        rowOpen = false
    }

    private mutating func appendInteger(_ integer: Int64) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(integer.magnitude, minimumCount: 1)
    }

    /// `magnitude` in decimal, left-padded with zeros to `minimumCount` (at most 20) digits.
    private mutating func appendDigits(_ magnitude: UInt64, minimumCount: Int) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: UInt64.max has 20 digits
        withUnsafeMutableBytes(of: &scratch) { raw in
            var value = magnitude
            var index = raw.count
            repeat {
                index -= 1
                raw[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0 || raw.count - index < minimumCount
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[index...]))
        }
    }

    private mutating func appendDecimal(_ decimal: DecimalDouble) {
        if decimal.negative { bytes.append(UInt8(ascii: "-")) }
        guard decimal.fractionDigits > 0 else { return appendDigits(decimal.digits, minimumCount: 1) }
        let scale = DecimalDouble.powers[decimal.fractionDigits]
        appendDigits(decimal.digits / UInt64(scale), minimumCount: 1)
        bytes.append(UInt8(ascii: "."))
        appendDigits(decimal.digits % UInt64(scale), minimumCount: decimal.fractionDigits)
    }

    private mutating func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") || $0 == 0 }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0: sawNUL = true
                default: bytes.append(byte)
                }
            }
        }
    }
}

/// A finite double that is exactly `±digits / 10^fractionDigits` once read back, with at most six
/// fraction digits and fewer than 2^53 digits: what feeds of measurements hold (`48.1`, `0.182`).
///
/// Invariant (why it reads back exactly): `digits` and `10^fractionDigits` are exact doubles, so
/// IEEE division gives the double nearest to the exact quotient, and it equals the value; a
/// correctly rounding reader (PostgreSQL's `float8in`, via `strtod`) returns that same double for
/// the decimal text. The fewest fraction digits that pass are taken; zero keeps its sign.
struct DecimalDouble: Equatable {
    let negative: Bool
    let digits: UInt64
    let fractionDigits: Int

    static let powers: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
    private static let limit = 9_007_199_254_740_992.0  // 2^53

    init(negative: Bool, digits: UInt64, fractionDigits: Int) {
        self.negative = negative
        self.digits = digits
        self.fractionDigits = fractionDigits
    }

    init?(_ value: Double) {
        guard value.isFinite else { return nil }
        let magnitude = value.magnitude
        for (fractionDigits, scale) in Self.powers.enumerated() {
            let scaled = (magnitude * scale).rounded()
            guard scaled < Self.limit else { return nil }
            if scaled / scale == magnitude {
                self.init(negative: value.sign == .minus, digits: UInt64(scaled), fractionDigits: fractionDigits)
                return
            }
        }
        return nil
    }
}
