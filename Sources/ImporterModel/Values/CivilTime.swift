/// A proleptic Gregorian date and time of day with microseconds, as the datetime parsers build it
/// before it is shifted to UTC and written as stored text.
///
/// Invariant after `validate()`: every field is in its calendar range and the year is 0...9999, so
/// the stored text has a fixed-width date and time and text order is time order.
struct CivilTime: Sendable, Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour = 0
    var minute = 0
    var second = 0
    /// 0...999_999.
    var microsecond = 0

    static let microsecondsPerDay = 86_400_000_000
    /// 0000-01-01 00:00:00 and 9999-12-31 23:59:59.999999 as microseconds since 1970.
    static let earliest = DateTimeFormat.daysFromCivil(year: 0, month: 1, day: 1) * microsecondsPerDay
    static let latest = (DateTimeFormat.daysFromCivil(year: 9999, month: 12, day: 31) + 1) * microsecondsPerDay - 1

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
    }

    /// The UTC time `microseconds` after 1970-01-01 00:00:00 (negative before).
    init(microsecondsSinceEpoch microseconds: Int) {
        let days = microseconds >= 0 ? microseconds / Self.microsecondsPerDay : (microseconds + 1) / Self.microsecondsPerDay - 1
        let ofDay = microseconds - days * Self.microsecondsPerDay
        (year, month, day) = DateTimeFormat.civilFromDays(days)
        let seconds = ofDay / 1_000_000
        hour = seconds / 3600
        minute = seconds % 3600 / 60
        second = seconds % 60
        microsecond = ofDay % 1_000_000
    }

    var microsecondsSinceEpoch: Int {
        let days = DateTimeFormat.daysFromCivil(year: year, month: month, day: day)
        return ((days * 86400 + hour * 3600 + minute * 60 + second) * 1_000_000) + microsecond
    }

    /// Throws when a field is out of its range (month 13, February 30, hour 24, second 60).
    @inline(__always) func validate() throws(DateTimeFormat.Failure) {
        guard year >= 0, year <= 9999 else { throw .init("year \(year) is outside 0000-9999") }
        guard month >= 1, month <= 12 else { throw .init("month \(month) does not exist") }
        let days = DateTimeFormat.daysIn(month: month, year: year)
        guard day >= 1, day <= days else {
            throw .init(month == 2 && day == 29 ? "\(year) is not a leap year (February has 28 days)" : "day \(day) does not exist in month \(month) (it has \(days) days)")
        }
        guard hour < 24 else { throw .init("hour \(hour) is outside 00-23") }
        guard minute < 60 else { throw .init("minute \(minute) is outside 00-59") }
        guard second < 60 else { throw .init("second \(second) is outside 00-59 (leap seconds are not kept)") }
    }

    /// The same instant in UTC, for a local time `offsetSeconds` east of UTC; throws when the
    /// result leaves years 0000-9999.
    @inline(__always) func utc(offsetSeconds: Int) throws(DateTimeFormat.Failure) -> CivilTime {
        guard offsetSeconds != 0 else { return self }
        let shifted = microsecondsSinceEpoch - offsetSeconds * 1_000_000
        guard shifted >= Self.earliest, shifted <= Self.latest else { throw .init("the UTC time is outside years 0000-9999") }
        return CivilTime(microsecondsSinceEpoch: shifted)
    }

    /// Appends the stored text: `YYYY-MM-DD`, or with the time `YYYY-MM-DD hh:mm:ss`, then `.fff`
    /// when the fraction is whole milliseconds or `.ffffff` otherwise (nothing for whole seconds).
    @inline(__always) func append(to output: inout [UInt8], includeTime: Bool) {
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
        guard includeTime else { return }
        output.append(UInt8(ascii: " "))
        append(hour, width: 2); output.append(UInt8(ascii: ":"))
        append(minute, width: 2); output.append(UInt8(ascii: ":"))
        append(second, width: 2)
        guard microsecond != 0 else { return }
        output.append(UInt8(ascii: "."))
        if microsecond % 1000 == 0 { append(microsecond / 1000, width: 3) } else { append(microsecond, width: 6) }
    }
}
