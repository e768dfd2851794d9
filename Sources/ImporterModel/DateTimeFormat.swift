/// A strftime-like pattern that parses dates and datetimes from feeds into canonical UTC text.
///
/// Directives: `%Y` (4-digit year), `%m`, `%d`, `%H`, `%M`, `%S` (2 digits each), `%%`; any other
/// character must match literally. Values are range-checked (month lengths, leap years). The result
/// is `YYYY-MM-DD` for dates and `YYYY-MM-DD hh:mm:ss` (UTC, shifted from the feed's zone) for
/// datetimes, so text order is time order.
public struct DateTimeFormat: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case year, month, day, hour, minute, second
        case literal(UInt8)
    }

    /// The pattern as written in the model.
    public let pattern: String
    let tokens: [Token]
    /// Seconds east of UTC for the feed's zone.
    let offsetSeconds: Int

    public static let canonicalDateTime = "%Y-%m-%d %H:%M:%S"
    public static let canonicalDate = "%Y-%m-%d"

    public init(pattern: String, timeZone: String = "UTC") throws(ModelError) {
        if let problem = Self.problem(with: pattern) { throw ModelError.invalid(problem) }
        guard let offset = Self.offsetSeconds(timeZone) else {
            throw ModelError.invalid("time zone '\(timeZone)' is not UTC or ±hh:mm")
        }
        self.pattern = pattern
        tokens = Self.tokenize(pattern) ?? []
        offsetSeconds = offset
    }

    /// Why `pattern` is not a valid format, or nil.
    public static func problem(with pattern: String) -> String? {
        guard let tokens = tokenize(pattern) else {
            return "format '\(pattern)' has an unknown directive (use %Y %m %d %H %M %S %%)"
        }
        guard tokens.contains(.year), tokens.contains(.month), tokens.contains(.day) else {
            return "format '\(pattern)' needs %Y, %m and %d"
        }
        return nil
    }

    private static func tokenize(_ pattern: String) -> [Token]? {
        var tokens: [Token] = []
        var bytes = Array(pattern.utf8).makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { tokens.append(.literal(byte)); continue }
            switch bytes.next() {
            case UInt8(ascii: "Y"): tokens.append(.year)
            case UInt8(ascii: "m"): tokens.append(.month)
            case UInt8(ascii: "d"): tokens.append(.day)
            case UInt8(ascii: "H"): tokens.append(.hour)
            case UInt8(ascii: "M"): tokens.append(.minute)
            case UInt8(ascii: "S"): tokens.append(.second)
            case UInt8(ascii: "%"): tokens.append(.literal(UInt8(ascii: "%")))
            default: return nil
            }
        }
        return tokens
    }

    /// `UTC`, `Z`, or `±hh:mm` as seconds east of UTC.
    public static func offsetSeconds(_ zone: String) -> Int? {
        if zone == "UTC" || zone == "Z" || zone == "GMT" { return 0 }
        let bytes = Array(zone.utf8)
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"), bytes[3] == UInt8(ascii: ":"),
              let hours = Int(String(decoding: bytes[1...2], as: UTF8.self)),
              let minutes = Int(String(decoding: bytes[4...5], as: UTF8.self)), hours <= 14, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Parses `bytes` and appends the canonical text to `output`; returns false when the text does
    /// not match the pattern or names an impossible date.
    public func parse(_ base: UnsafePointer<UInt8>, count: Int, includeTime: Bool, into output: inout [UInt8]) -> Bool {
        var index = 0
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        @inline(__always) func digits(_ n: Int) -> Int? {
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
        for token in tokens {
            switch token {
            case .year: guard let v = digits(4) else { return false }; year = v
            case .month: guard let v = digits(2) else { return false }; month = v
            case .day: guard let v = digits(2) else { return false }; day = v
            case .hour: guard let v = digits(2) else { return false }; hour = v
            case .minute: guard let v = digits(2) else { return false }; minute = v
            case .second: guard let v = digits(2) else { return false }; second = v
            case .literal(let byte):
                guard index < count, base[index] == byte else { return false }
                index += 1
            }
        }
        guard index == count, month >= 1, month <= 12, day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return false }
        if offsetSeconds != 0 {
            var days = Self.daysFromCivil(year: year, month: month, day: day)
            var seconds = hour * 3600 + minute * 60 + second - offsetSeconds
            days += seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
            seconds -= (seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400) * 86400
            (year, month, day) = Self.civilFromDays(days)
            hour = seconds / 3600
            minute = seconds % 3600 / 60
            second = seconds % 60
            guard year >= 0, year <= 9999 else { return false }
        }
        @inline(__always) func append(_ value: Int, width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(0x30 + value / divisor % 10))
                divisor /= 10
            }
        }
        append(year, width: 4); output.append(UInt8(ascii: "-"))
        append(month, width: 2); output.append(UInt8(ascii: "-"))
        append(day, width: 2)
        if includeTime {
            output.append(UInt8(ascii: " "))
            append(hour, width: 2); output.append(UInt8(ascii: ":"))
            append(minute, width: 2); output.append(UInt8(ascii: ":"))
            append(second, width: 2)
        }
        return true
    }

    /// Seconds since 1970-01-01 of a value as importer stores dates and datetimes (UTC text,
    /// `YYYY-MM-DD` or `YYYY-MM-DD hh:mm:ss`); nil for any other text.
    public static func secondsSinceEpoch(storedUTC text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= 48, bytes[index] <= 57 else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86400
        if bytes.count == 19 {
            guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
            seconds += Double(hour * 3600 + minute * 60 + second)
        }
        return seconds
    }

    /// The stored UTC text of a whole number of seconds since 1970 (`YYYY-MM-DD hh:mm:ss`, or the
    /// date alone): the inverse of `secondsSinceEpoch(storedUTC:)`.
    public static func storedUTC(secondsSinceEpoch seconds: Int, dateOnly: Bool) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        guard !dateOnly else { return date }
        let second = seconds - days * 86400
        return date + " \(pad(second / 3600, 2)):\(pad(second % 3600 / 60, 2)):\(pad(second % 60, 2))"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
