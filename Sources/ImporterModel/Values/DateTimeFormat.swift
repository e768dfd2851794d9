/// How a feed's dates and datetimes are read, and their canonical stored UTC text.
///
/// A format is a named format or a strftime-like pattern:
/// - `epoch-s`, `epoch-ms`, `epoch-us`: seconds, milliseconds or microseconds since 1970-01-01 UTC,
///   an integer or decimal (JSON number or numeric string, sign and exponent allowed);
/// - `iso8601`: `YYYY-MM-DD[Thh:mm[:ss[.f…]]][Z|±hh:mm|±hhmm|±hh]`, `T` or a space; a value without
///   an offset is in the field's zone; the date alone is accepted for date attributes;
/// - `rfc2822`: `[Fri, ]6 Mar 2020 17:42[:58] +0000`, zones ±hhmm, UT, UTC, GMT, Z and the US names
///   (EST … PDT); 2-digit years are 1950-2049, 3-digit years add 1900;
/// - a pattern: `%Y` (4-digit year), `%m`, `%d`, `%H`, `%M`, `%S` (2 digits each), `%f` (one or more
///   fraction-of-second digits), `%z` (`Z`, ±hh:mm, ±hhmm or ±hh; overrides the field's zone), `%%`;
///   any other character must match literally.
///
/// Values are range-checked (month lengths, leap years) and normalised to UTC. The stored text is
/// `YYYY-MM-DD` for dates and `YYYY-MM-DD hh:mm:ss` for whole-second datetimes, with `.fff` for a
/// whole number of milliseconds or `.ffffff` otherwise (digits beyond microseconds are truncated),
/// so each instant has one text and text order is time order.
public struct DateTimeFormat: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case year, month, day, hour, minute, second, fraction, offset
        case literal(UInt8)
    }

    enum Kind: Sendable, Equatable {
        case pattern([Token])
        /// A number of units of 10^-`exponent` seconds since 1970.
        case epoch(exponent: Int)
        case iso8601
        case rfc2822
    }

    /// Why a value is not a date or datetime of the format.
    public struct Failure: Error, Sendable, Equatable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The format as written in the model (a name or a pattern).
    public let pattern: String
    let kind: Kind
    /// The zone of values that carry no offset.
    public let zone: LocalZone

    public static let canonicalDateTime = "%Y-%m-%d %H:%M:%S"
    public static let canonicalDate = "%Y-%m-%d"
    /// The named formats, in the order messages list them.
    public static let names = ["epoch-s", "epoch-ms", "epoch-us", "iso8601", "rfc2822"]

    public init(pattern: String, timeZone: String = "UTC") throws(ModelError) {
        if let problem = Self.problem(with: pattern) { throw ModelError.invalid(problem) }
        guard let zone = LocalZone(timeZone) else {
            throw ModelError.invalid("time zone '\(timeZone)' is not UTC, ±hh:mm or an IANA name (Europe/Berlin)")
        }
        self.pattern = pattern
        kind = Self.named(pattern) ?? .pattern(Self.tokenize(pattern) ?? [])
        self.zone = zone
    }

    static func named(_ name: String) -> Kind? {
        switch name {
        case "epoch-s": .epoch(exponent: 0)
        case "epoch-ms": .epoch(exponent: 3)
        case "epoch-us": .epoch(exponent: 6)
        case "iso8601": .iso8601
        case "rfc2822": .rfc2822
        default: nil
        }
    }

    /// Why `pattern` is neither a named format nor a pattern that can parse, or nil.
    public static func problem(with pattern: String) -> String? {
        if named(pattern) != nil { return nil }
        let known = "a named format (\(names.joined(separator: ", "))) or a pattern of %Y %m %d %H %M %S %f %z %%"
        guard pattern.contains("%") else { return "format '\(pattern)' is unknown: give \(known)" }
        guard let tokens = tokenize(pattern) else { return "format '\(pattern)' has an unknown directive: give \(known)" }
        guard tokens.contains(.year), tokens.contains(.month), tokens.contains(.day) else {
            return "format '\(pattern)' needs %Y, %m and %d"
        }
        let directives: [(Token, String)] = [(.year, "Y"), (.month, "m"), (.day, "d"), (.hour, "H"), (.minute, "M"), (.second, "S"), (.fraction, "f"), (.offset, "z")]
        for (token, letter) in directives where tokens.filter({ $0 == token }).count > 1 {
            return "format '\(pattern)' has %\(letter) more than once"
        }
        if tokens.contains(.fraction), !tokens.contains(.second) { return "format '\(pattern)' has %f (fraction of a second) without %S" }
        for (token, next) in zip(tokens, tokens.dropFirst()) where token == .fraction || token == .offset {
            if case .literal = next { continue }
            if next == .offset && token == .fraction { continue }
            return "format '\(pattern)' cannot be parsed: %\(token == .fraction ? "f" : "z") takes a variable number of digits, so it must not be followed directly by another number"
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
            case UInt8(ascii: "f"): tokens.append(.fraction)
            case UInt8(ascii: "z"): tokens.append(.offset)
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
    /// not match the format or names an impossible date (`output` is then unchanged).
    public func parse(_ base: UnsafePointer<UInt8>, count: Int, includeTime: Bool, into output: inout [UInt8]) -> Bool {
        guard let time = try? utcTime(base, count: count, includeTime: includeTime) else { return false }
        time.append(to: &output, includeTime: includeTime)
        return true
    }

    /// Why `bytes` is not a value of the format, as a reject reason
    /// (`expected a datetime in the format epoch-ms: 'soon' is not a number`).
    public func rejection(_ base: UnsafePointer<UInt8>, count: Int, includeTime: Bool) -> String {
        let expected = "expected a \(includeTime ? "datetime" : "date") in the format \(pattern)"
        do throws(Failure) {
            _ = try utcTime(base, count: count, includeTime: includeTime)
            return expected
        } catch {
            return expected + ": " + error.reason
        }
    }

    /// The value as a UTC date and time, or the reason it is not one.
    func utcTime(_ base: UnsafePointer<UInt8>, count: Int, includeTime: Bool) throws(Failure) -> CivilTime {
        var cursor = DateTimeCursor(base, count: count)
        guard count > 0 else { throw Failure("the value is empty") }
        switch kind {
        case .pattern(let tokens):
            return try Self.parsePattern(tokens, &cursor, zone: zone)
        case .epoch(let exponent):
            return try Self.parseEpoch(&cursor, exponent: exponent)
        case .iso8601:
            return try Self.parseISO8601(&cursor, zone: zone, includeTime: includeTime)
        case .rfc2822:
            return try Self.parseRFC2822(&cursor)
        }
    }

    /// A value of a pattern, shifted to UTC.
    static func parsePattern(_ tokens: [Token], _ cursor: inout DateTimeCursor, zone: LocalZone) throws(Failure) -> CivilTime {
        var time = CivilTime(year: 0, month: 0, day: 0)
        var offset: Int?
        for token in tokens {
            switch token {
            case .year: time.year = try cursor.require(4, "year")
            case .month: time.month = try cursor.require(2, "month")
            case .day: time.day = try cursor.require(2, "day")
            case .hour: time.hour = try cursor.require(2, "hour")
            case .minute: time.minute = try cursor.require(2, "minute")
            case .second: time.second = try cursor.require(2, "second")
            case .fraction:
                guard let micros = cursor.fraction() else { throw Failure("expected the digits of a fraction of a second at \(cursor.position)") }
                time.microsecond = micros
            case .offset:
                guard let value = try cursor.offset() else { throw Failure("expected an offset (Z, ±hh:mm, ±hhmm or ±hh) at \(cursor.position)") }
                offset = value
            case .literal(let byte):
                guard cursor.take(byte) else { throw Failure("expected '\(Character(Unicode.Scalar(byte)))' at \(cursor.position)") }
            }
        }
        try cursor.requireEnd()
        try time.validate()
        guard let offset else { return try zone.utc(time) }
        return try time.utc(offsetSeconds: offset)
    }

    /// Seconds since 1970-01-01 of a value as importer stores dates and datetimes (UTC text,
    /// `YYYY-MM-DD` or `YYYY-MM-DD hh:mm:ss[.f…]`); nil for any other text.
    public static func secondsSinceEpoch(storedUTC text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count == 19 || (bytes.count >= 21 && bytes.count <= 26 && bytes[19] == UInt8(ascii: ".")) else { return nil }
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
        if bytes.count >= 19 {
            guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
            seconds += Double(hour * 3600 + minute * 60 + second)
        }
        if bytes.count > 19 {
            guard let fraction = number(20..<bytes.count) else { return nil }
            var scale = 1.0
            for _ in 20..<bytes.count { scale *= 10 }
            seconds += Double(fraction) / scale
        }
        return seconds
    }

    /// The stored UTC text of a whole number of seconds since 1970 (`YYYY-MM-DD hh:mm:ss`, or the
    /// date alone): the inverse of `secondsSinceEpoch(storedUTC:)`.
    public static func storedUTC(secondsSinceEpoch seconds: Int, dateOnly: Bool) -> String {
        var output: [UInt8] = []
        CivilTime(microsecondsSinceEpoch: seconds * 1_000_000).append(to: &output, includeTime: !dateOnly)
        return String(decoding: output, as: UTF8.self)
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
