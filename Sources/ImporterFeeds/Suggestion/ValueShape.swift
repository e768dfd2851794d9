/// The shapes a sampled string can have that a type other than text can read.
struct ValueShape: OptionSet, Hashable, Sendable {
    let rawValue: Int

    static let integer = ValueShape(rawValue: 1 << 0)
    static let real = ValueShape(rawValue: 1 << 1)
    /// ISO 8601 with `T`: `2020-03-06T17:42:58.620Z`, `2020-03-06T17:42:58+02:00`.
    static let iso8601 = ValueShape(rawValue: 1 << 2)
    /// `2020-03-06 17:42:58`.
    static let spacedDateTime = ValueShape(rawValue: 1 << 3)
    /// `2020-03-06`.
    static let date = ValueShape(rawValue: 1 << 4)
    /// RFC 2822 (RSS `pubDate`): `Fri, 06 Mar 2020 17:42:58 +0000`.
    static let rfc2822 = ValueShape(rawValue: 1 << 5)
    /// `true` or `false`, any case.
    static let booleanWord = ValueShape(rawValue: 1 << 6)

    /// The shapes of `text` (a number token's or a string's).
    static func of(_ text: String) -> ValueShape {
        let bytes = Array(text.utf8)
        var shape: ValueShape = []
        if isInteger(bytes) {
            // `007` is an identifier, not the number 7: it stays text.
            let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
            if !(digits.count > 1 && digits.first == UInt8(ascii: "0")) { shape.insert([.integer, .real]) }
        } else if isReal(bytes) {
            shape.insert(.real)
        }
        if isDateTime(bytes, separator: UInt8(ascii: "T")) { shape.insert(.iso8601) }
        if isDateTime(bytes, separator: UInt8(ascii: " ")) && bytes.count == 19 { shape.insert(.spacedDateTime) }
        if bytes.count == 10 && isDate(bytes) { shape.insert(.date) }
        if isRFC2822(text) { shape.insert(.rfc2822) }
        if ["true", "false"].contains(text.lowercased()) { shape.insert(.booleanWord) }
        return shape
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isInteger(_ bytes: [UInt8]) -> Bool {
        let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
        return !digits.isEmpty && digits.allSatisfy(isDigit)
    }

    /// JSON's number grammar (what the importer's number parser reads without `+` or spaces).
    static func isReal(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// `YYYY-MM-DD` with a plausible month and day.
    static func isDate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ isDigit(bytes[$0]) }) else { return false }
        let month = Int(bytes[5] - 0x30) * 10 + Int(bytes[6] - 0x30)
        let day = Int(bytes[8] - 0x30) * 10 + Int(bytes[9] - 0x30)
        return (1...12).contains(month) && (1...31).contains(day)
    }

    /// `YYYY-MM-DD<separator>hh:mm:ss`, then (with `T`) optional fraction and zone.
    static func isDateTime(_ bytes: [UInt8], separator: UInt8) -> Bool {
        guard bytes.count >= 19, isDate(bytes), bytes[10] == separator, bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              [11, 12, 14, 15, 17, 18].allSatisfy({ isDigit(bytes[$0]) }) else { return false }
        var index = 19
        guard separator == UInt8(ascii: "T") else { return index == bytes.count }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > start else { return false }
        }
        if index == bytes.count { return true }
        if bytes[index] == UInt8(ascii: "Z") { return index + 1 == bytes.count }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), bytes.count - index == 6,
              bytes[index + 3] == UInt8(ascii: ":") else { return false }
        return [1, 2, 4, 5].allSatisfy { isDigit(bytes[index + $0]) }
    }

    /// `[Day, ]DD Mon YYYY hh:mm[:ss] zone` (RFC 2822 § 3.3).
    static func isRFC2822(_ text: String) -> Bool {
        var parts = text.split(separator: " ")
        if let first = parts.first, first.hasSuffix(",") { parts.removeFirst() }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 5, let day = Int(parts[0]), (1...31).contains(day), months.contains(String(parts[1])),
              parts[2].count == 4, Int(parts[2]) != nil else { return false }
        let time = parts[3].split(separator: ":")
        guard (2...3).contains(time.count), time.allSatisfy({ $0.count == 2 && Int($0) != nil }) else { return false }
        let zone = parts[4]
        return ["UT", "GMT", "Z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT"].contains(String(zone))
            || (zone.count == 5 && (zone.hasPrefix("+") || zone.hasPrefix("-")) && Int(zone.dropFirst()) != nil)
    }
}
