/// A forward reader over the bytes of one feed value, shared by the datetime parsers. Every
/// accessor leaves `index` unchanged when it does not match.
struct DateTimeCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0

    init(_ base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    var atEnd: Bool { index >= count }
    var current: UInt8? { index < count ? base[index] : nil }

    /// Consumes `byte` when it is next.
    @inline(__always) mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Exactly `n` digits as a number, or nil.
    @inline(__always) mutating func digits(_ n: Int) -> Int? {
        guard index + n <= count else { return nil }
        var value = 0
        for i in 0..<n {
            let digit = base[index + i] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        index += n
        return value
    }

    /// `n` digits or throws naming `what` and the text found there.
    @inline(__always) mutating func require(_ n: Int, _ what: String) throws(DateTimeFormat.Failure) -> Int {
        guard let value = digits(n) else { throw .init("expected \(n) digits of the \(what) at \(position)") }
        return value
    }

    /// `byte` or throws naming it and what was found instead.
    @inline(__always) mutating func require(_ byte: UInt8, after what: String) throws(DateTimeFormat.Failure) {
        guard take(byte) else { throw .init("expected '\(Character(Unicode.Scalar(byte)))' after the \(what) at \(position)") }
    }

    /// One or more digits as microseconds (the first six digits, later ones truncated), or nil.
    @inline(__always) mutating func fraction() -> Int? {
        var value = 0, length = 0
        while let byte = current, byte &- 0x30 < 10 {
            if length < 6 { value = value * 10 + Int(byte &- 0x30) }
            length += 1
            index += 1
        }
        guard length > 0 else { return nil }
        for _ in length..<max(length, 6) { value *= 10 }
        return value
    }

    /// Skips digits; returns how many.
    @inline(__always) mutating func skipDigits() -> Int {
        let start = index
        while let byte = current, byte &- 0x30 < 10 { index += 1 }
        return index - start
    }

    /// The value's text from `start` (at most 24 bytes), quoted, for messages.
    func text(from start: Int) -> String {
        let shown = UnsafeBufferPointer(start: base + start, count: min(count - start, 24))
        return "'" + String(decoding: shown, as: UTF8.self) + (count - start > 24 ? "…'" : "'")
    }

    /// Skips spaces and tabs; returns whether any were skipped.
    @discardableResult
    @inline(__always) mutating func skipSpaces() -> Bool {
        let start = index
        while current == 0x20 || current == 0x09 { index += 1 }
        return index > start
    }

    /// The run of ASCII letters at the cursor, lowercased (empty when none).
    @inline(__always) mutating func word() -> String {
        var letters: [UInt8] = []
        while let byte = current, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
            letters.append(byte | 0x20)
            index += 1
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// `±hh:mm`, `±hhmm` or `±hh` (also `Z` when `allowZ`) as seconds east of UTC, or nil when no
    /// offset starts here; throws when one starts but is malformed.
    @inline(__always) mutating func offset(allowZ: Bool = true) throws(DateTimeFormat.Failure) -> Int? {
        if allowZ, current == UInt8(ascii: "Z") || current == UInt8(ascii: "z") { index += 1; return 0 }
        guard let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let hours = digits(2) else { throw .init("expected an offset (±hh:mm, ±hhmm or ±hh) at \(position)") }
        var minutes = 0
        if take(UInt8(ascii: ":")) {
            guard let m = digits(2) else { throw .init("expected the minutes of the offset at \(position)") }
            minutes = m
        } else if let m = digits(2) {
            minutes = m
        }
        guard hours <= 23, minutes <= 59 else { throw .init("offset \(hours):\(minutes) is out of range") }
        let seconds = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Throws unless every byte was read.
    @inline(__always) func requireEnd() throws(DateTimeFormat.Failure) {
        guard atEnd else { throw .init("unexpected text \(position)") }
    }

    /// Where the cursor is, for messages: `'rest'` (at most 12 bytes) or `the end`.
    var position: String {
        guard index < count else { return "the end" }
        let rest = UnsafeBufferPointer(start: base + index, count: min(count - index, 12))
        return "'" + String(decoding: rest, as: UTF8.self) + (count - index > 12 ? "…'" : "'")
    }
}
