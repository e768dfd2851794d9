import Foundation
import ImporterModel

/// Why a scan stopped: the buffer ran out in the middle of a unit (refill and retry it), or the
/// input is invalid.
enum ScanError: Error {
    case needMore
    case invalid(FeedError)
}

/// A restartable JSON tokenizer over a refillable buffer.
///
/// Readers parse in *units* (one top-level member, one record) through `unit(_:)`: when a unit runs
/// past the end of the buffer, the scanner compacts the buffer, reads more, and runs the unit again
/// from its start. Units must therefore only produce output after they succeed, or reset it at
/// their start. Line and column are tracked as the scanner skips whitespace (raw newlines can only
/// appear in JSON whitespace), so locations cost nothing on the happy path.
///
/// Hand-written rather than libyajl: this is the hot path of every JSON import, and it measured
/// faster (see Docs/DECISIONS.md, "JSON parsing").
final class JSONScanner {
    let source: ByteSource
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Valid bytes in `storage`.
    private(set) var count = 0
    /// Read position in `storage`.
    var position = 0
    /// Absolute offset of `storage[0]` in the input.
    private(set) var base = 0
    private(set) var line = 1
    /// Absolute offset of the first byte of the current line.
    private(set) var lineStart = 0
    private(set) var atEnd = false
    /// Whether the first bytes have been read (and a byte order mark dropped).
    private var started = false
    let maximumUnitSize: Int

    struct Checkpoint {
        var position: Int
        var line: Int
        var lineStart: Int
    }

    init(source: ByteSource, initialCapacity: Int = 1 << 20, maximumUnitSize: Int = 64 << 20) {
        self.source = source
        self.capacity = initialCapacity
        self.storage = .allocate(capacity: initialCapacity)
        self.maximumUnitSize = maximumUnitSize
    }

    deinit { storage.deallocate() }

    var checkpoint: Checkpoint { Checkpoint(position: position, line: line, lineStart: lineStart) }

    func restore(_ checkpoint: Checkpoint) {
        position = checkpoint.position
        line = checkpoint.line
        lineStart = checkpoint.lineStart
    }

    /// Runs `body` as one unit, refilling and retrying while it needs more input.
    func unit<T>(_ body: () throws(ScanError) -> T) throws(FeedError) -> T {
        while true {
            let start = checkpoint
            do {
                return try body()
            } catch {
                switch error {
                case .needMore:
                    restore(start)
                    try refill()
                case .invalid(let failure):
                    throw failure
                }
            }
        }
    }

    /// Moves the unconsumed bytes (from `position`) to the front and reads more after them.
    private func refill() throws(FeedError) {
        if atEnd { return }
        if position > 0 {
            let remaining = count - position
            if remaining > 0 { storage.update(from: storage + position, count: remaining) }
            base += position
            count = remaining
            position = 0
        }
        if count == capacity {
            guard capacity < maximumUnitSize else {
                throw FeedError.recordTooLarge(location(), limit: maximumUnitSize)
            }
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            larger.update(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        var n = try source.read(into: storage + count, count: capacity - count)
        if !started {
            started = true
            // RFC 8259 lets a parser ignore a UTF-8 byte order mark: at least 3 bytes to see it.
            while n > 0 && n < 3 {
                let more = try source.read(into: storage + n, count: capacity - n)
                if more == 0 { break }
                n += more
            }
            if n >= 3 && storage[0] == 0xEF && storage[1] == 0xBB && storage[2] == 0xBF {
                storage.update(from: storage + 3, count: n - 3)
                n -= 3
                base = 3
                lineStart = 3
            }
        }
        if n == 0 { atEnd = true }
        count += n
    }

    // MARK: Locations

    func location(recordIndex: Int? = nil) -> SourceLocation {
        SourceLocation(source: source.name, line: line, column: base + position - lineStart + 1, recordIndex: recordIndex)
    }

    var currentColumn: Int { base + position - lineStart + 1 }

    func syntaxError(expected: String, recordIndex: Int? = nil) -> ScanError {
        .invalid(.syntax(location(recordIndex: recordIndex), expected: expected, found: describeCurrent()))
    }

    /// A short description of what is at the read position, for error messages.
    func describeCurrent() -> String {
        if position >= count { return "end of input" }
        let byte = storage[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\""):
            return "'\(Character(UnicodeScalar(byte)))'"
        case 0x21...0x7E:
            var end = position
            while end < count, end - position < 20, storage[end] > 0x20, storage[end] < 0x7F,
                  ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(storage[end]) { end += 1 }
            return "'" + String(decoding: UnsafeBufferPointer(start: storage + position, count: end - position), as: UTF8.self) + "'"
        default:
            return "byte " + UTF8Lead.hex(byte)
        }
    }

    // MARK: Tokens

    /// Skips whitespace and returns the next byte without consuming it; 0 at the true end of input
    /// (a NUL byte in the input, never valid outside a string, is an error rather than an end).
    @inline(__always)
    func peek() throws(ScanError) -> UInt8 {
        while position < count {
            let byte = storage[position]
            switch byte {
            case 0x20, 0x09, 0x0D:
                position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = base + position
            case 0:
                throw syntaxError(expected: "JSON text (a NUL byte is not allowed outside strings)")
            default:
                return byte
            }
        }
        if atEnd { return 0 }
        throw .needMore
    }

    /// Consumes `byte` (after whitespace) or fails with `expected`.
    @inline(__always)
    func expect(_ byte: UInt8, _ expected: String) throws(ScanError) {
        guard try peek() == byte else { throw syntaxError(expected: expected) }
        position += 1
    }

    /// After a value inside a container: consumes `,` and returns true, or consumes `close` and
    /// returns false.
    @inline(__always)
    func separator(close: UInt8, context: String) throws(ScanError) -> Bool {
        let byte = try peek()
        if byte == UInt8(ascii: ",") { position += 1; return true }
        if byte == close { position += 1; return false }
        throw syntaxError(expected: "',' or '\(Character(UnicodeScalar(close)))' \(context)")
    }

    /// Reads a number token and appends its text to `output` (validated against JSON's grammar).
    func number(into output: inout [UInt8]) throws(ScanError) {
        let start = try consumeNumber()
        output.append(contentsOf: UnsafeBufferPointer(start: storage + start, count: position - start))
    }

    /// Consumes a number token, validated; returns where it started.
    func consumeNumber() throws(ScanError) -> Int {
        _ = try peek()
        let start = position
        var index = position
        @inline(__always) func byte(_ i: Int) throws(ScanError) -> UInt8 {
            if i < count { return storage[i] }
            if atEnd { return 0 }
            throw .needMore
        }
        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if try byte(index) == UInt8(ascii: "-") { index += 1 }
        let first = try byte(index)
        guard isDigit(first) else { throw syntaxError(expected: "a value") }
        index += 1
        if first != UInt8(ascii: "0") {
            while isDigit(try byte(index)) { index += 1 }
        }
        if try byte(index) == UInt8(ascii: ".") {
            index += 1
            guard isDigit(try byte(index)) else { position = index; throw syntaxError(expected: "a digit after '.'") }
            while isDigit(try byte(index)) { index += 1 }
        }
        let e = try byte(index)
        if e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            let sign = try byte(index)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard isDigit(try byte(index)) else { position = index; throw syntaxError(expected: "a digit in the exponent") }
            while isDigit(try byte(index)) { index += 1 }
        }
        position = index
        return start
    }

    /// Consumes the literal `true`, `false` or `null` at the read position.
    func literal() throws(ScanError) -> RawKind {
        let byte = try peek()
        let (text, kind): (StaticString, RawKind) = switch byte {
        case UInt8(ascii: "t"): ("true", .boolTrue)
        case UInt8(ascii: "f"): ("false", .boolFalse)
        default: ("null", .null)
        }
        let length = text.utf8CodeUnitCount
        if position + length > count && !atEnd { throw .needMore }
        guard position + length <= count, memcmp(storage + position, text.utf8Start, length) == 0 else {
            throw syntaxError(expected: "a value")
        }
        position += length
        return kind
    }

    /// Skips any value (used for members a reader does not need).
    func skipValue(depth: Int = 0) throws(ScanError) {
        guard depth < 512 else { throw syntaxError(expected: "nesting shallower than 512 levels") }
        switch try peek() {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"):
            position += 1
            if try peek() == UInt8(ascii: "}") { position += 1; return }
            repeat {
                try skipString()
                try expect(UInt8(ascii: ":"), "':' after an object key")
                try skipValue(depth: depth + 1)
            } while try separator(close: UInt8(ascii: "}"), context: "in an object")
        case UInt8(ascii: "["):
            position += 1
            if try peek() == UInt8(ascii: "]") { position += 1; return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try separator(close: UInt8(ascii: "]"), context: "in an array")
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            _ = try literal()
        case 0:
            throw syntaxError(expected: "a value")
        default:
            _ = try consumeNumber()
        }
    }

    /// Reads the scalar value at the read position into `record.slots[slot]` (its text into the
    /// record's bytes) and returns true; at an object or array, records the slot's location with
    /// kind `.composite`, consumes nothing and returns false.
    @inline(__always)
    func scalar(into record: inout RawRecord, slot: Int) throws(ScanError) -> Bool {
        guard var value = try scalarSlot(into: &record) else {
            record.slots[slot] = RawSlot(kind: .composite, line: Int32(truncatingIfNeeded: line), column: Int32(truncatingIfNeeded: currentColumn))
            return false
        }
        value.occurrences = 1
        record.slots[slot] = value
        return true
    }

    /// Reads a string, number, boolean or null, appending its bytes to `record.bytes`, and returns
    /// the slot that locates it; nil, consuming nothing, for an object or array.
    @inline(__always)
    func scalarSlot(into record: inout RawRecord) throws(ScanError) -> RawSlot? {
        let byte = try peek()
        var s = RawSlot()
        s.line = Int32(truncatingIfNeeded: line)
        s.column = Int32(truncatingIfNeeded: currentColumn)
        s.start = Int32(record.bytes.count)
        switch byte {
        case UInt8(ascii: "\""):
            try string(into: &record.bytes)
            s.kind = .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            s.kind = try literal()
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return nil
        default:
            try number(into: &record.bytes)
            s.kind = .number
        }
        s.count = Int32(record.bytes.count) - s.start
        return s
    }
}
