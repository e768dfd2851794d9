import ImporterModel
import NIOCore

/// COPY's binary format (`FORMAT binary`) for a batch's rows: each value as the server keeps it,
/// `bigint` as 8 bytes and `double precision` as its IEEE bits (big-endian), text as its UTF-8
/// bytes. The server then parses no value: in psql, COPY of 5,000,000 fireball-shaped rows into a
/// temporary table took 11.0–11.4 s as text and 4.8–5.7 s in this format (figures:
/// Docs/PERFORMANCE.md). A double reads back bit for bit.
///
/// Only a value of its column's own type is encoded (`appendRecord` says false otherwise): a batch
/// that holds another (text in a number column) is sent as text (`CopyText`), for the server to
/// parse as before. Text that is not valid UTF-8 is written as `CopyText` writes it (each invalid
/// sequence replaced by U+FFFD); a NUL character is left out and noted (`sawNUL`), as there.
///
/// The rows are what `CopyQueue` gathers; it adds the format's header and trailer around each
/// chunk (`header`, `trailer`).
struct CopyBinary {
    /// How a column is stored (`PostgresEntitySchema.sqlType`).
    enum Column: Equatable {
        case bigint, double, text

        init(_ type: AttributeType) {
            switch PostgresEntitySchema.sqlType(type) {
            case "bigint": self = .bigint
            case "double precision": self = .double
            default: self = .text
            }
        }
    }

    /// The signature, no flags, no header extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// A field count of -1.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    private var bytes: [UInt8] = []
    /// A text value held the NUL character, which PostgreSQL text cannot hold (it is left out).
    private(set) var sawNUL = false

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The rows written so far.
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Starts a row of `fields` values.
    mutating func beginRow(fields: Int) {
        appendBigEndian(UInt16(truncatingIfNeeded: fields))
    }

    /// Appends a `bigint` value.
    mutating func append(_ integer: Int64) {
        appendBigEndian(UInt32(8))
        appendBigEndian(UInt64(bitPattern: integer))
    }

    /// Appends the batch's values of `record`, `columns[position]` the storage of its position
    /// (all of the row's fields when `beginRow` counted only them). False when a value is not of
    /// its column's type: the rows written are then not to be sent.
    mutating func appendRecord(_ record: Int, of batch: RecordBatch, columns: [Column], arena: UnsafePointer<UInt8>) -> Bool {
        for position in 0..<batch.width {
            switch (batch.value(record: record, position: position), columns[position]) {
            case (.null, _): appendBigEndian(UInt32.max)
            case (.integer(let integer), .bigint): append(integer)
            case (.integer(let integer), .double): appendDouble(Double(integer))
            case (.real(let real), .double): appendDouble(real)
            case (.text(let start, let count), .text): appendText(UnsafeBufferPointer(start: arena + Int(start), count: Int(count)))
            default: return false
            }
        }
        return true
    }

    /// As text COPY reads the integer's decimal form: the nearest double.
    private mutating func appendDouble(_ real: Double) {
        appendBigEndian(UInt32(8))
        appendBigEndian(real.bitPattern)
    }

    private mutating func appendText(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.contains(where: { $0 >= 0x80 || $0 == 0 }) else {
            appendBigEndian(UInt32(utf8.count))
            return bytes.append(contentsOf: utf8)
        }
        // As `CopyText` receives it (`RecordBatch.publicValue`): decoded, invalid sequences replaced.
        var text = String(decoding: utf8, as: UTF8.self)
        text.withUTF8 { valid in
            let kept = valid.lazy.filter { $0 != 0 }
            if kept.count != valid.count { sawNUL = true }
            appendBigEndian(UInt32(kept.count))
            bytes.append(contentsOf: kept)
        }
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
