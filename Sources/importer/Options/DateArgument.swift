import ArgumentParser
import Foundation

/// A date option (`--since`, `--before`, `--as-of`) as history timestamps are written
/// (`2026-01-01T06:30:00.000Z`, UTC). Accepted:
/// - a date alone, `2026-01-01` (its midnight, UTC);
/// - ISO 8601 date and time, `T` or a space between, seconds and a fraction optional, with `Z`, an
///   offset (`+02:00`, `+0200`, `-05`) or none (UTC): `2026-01-01T08:30:00+02:00`;
/// - a time ago: a whole number and a unit, `30s`, `30m`, `12h`, `7d`, `2w`.
enum DateArgument {
    /// The accepted forms, as an error message shows them.
    static let examples = "a date (2026-01-01), an ISO 8601 date and time (2026-01-01T06:30:00Z, 2026-01-01T08:30:00+02:00) or a time ago (30m, 12h, 7d, 2w)"

    /// The UTC timestamp `text` names, or nil when it is none of the accepted forms.
    static func timestamp(_ text: String, now: Date = Date()) -> String? {
        (ago(text, now: now) ?? absolute(text)).map(format)
    }

    /// `timestamp(text)`, or a usage error naming `option` and showing the accepted forms.
    static func parse(_ text: String, option: String) throws -> String {
        guard let timestamp = timestamp(text) else {
            throw ValidationError("\(option): '\(text)' is not a date; give \(examples)")
        }
        return timestamp
    }

    /// Whether `text` looks like a date rather than a token (for options that take either).
    static func isDate(_ text: String) -> Bool { timestamp(text) != nil }

    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]

    private static func ago(_ text: String, now: Date) -> Date? {
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count >= 0,
              text.dropLast().allSatisfy(\.isASCII) else { return nil }
        return now.addingTimeInterval(-Double(count) * unit)
    }

    private static var pattern: Regex<(Substring, Substring, Substring, Substring, Substring?, Substring?, Substring?, Substring?, Substring?)> { #/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/# }

    private static func absolute(_ text: String) -> Date? {
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        let output = match.output
        var components = DateComponents()
        components.year = Int(output.1)
        components.month = Int(output.2)
        components.day = Int(output.3)
        components.hour = output.4.flatMap { Int($0) } ?? 0
        components.minute = output.5.flatMap { Int($0) } ?? 0
        components.second = output.6.flatMap { Int($0) } ?? 0
        guard let hour = components.hour, let minute = components.minute, let second = components.second,
              hour < 24, minute < 60, second < 60 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        // An impossible day (2026-02-30) does not round-trip.
        guard let date = calendar.date(from: components),
              calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: components.year, month: components.month, day: components.day)
        else { return nil }
        let fraction = output.7.flatMap { Double("0" + $0) } ?? 0
        return date.addingTimeInterval(fraction - Double(offsetSeconds(output.8.map(String.init)) ?? 0))
    }

    /// `Z` or none → 0; `+hh`, `+hhmm`, `+hh:mm` → seconds east of UTC.
    private static func offsetSeconds(_ text: String?) -> Int? {
        guard let text, text != "Z" else { return 0 }
        let sign = text.hasPrefix("-") ? -1 : 1
        let digits = text.dropFirst().filter(\.isNumber)
        guard let hours = Int(digits.prefix(2)) else { return nil }
        let minutes = Int(digits.dropFirst(2)) ?? 0
        return sign * (hours * 3600 + minutes * 60)
    }

    private static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return formatter.string(from: date)
    }
}
