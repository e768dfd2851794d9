extension DateTimeFormat {
    /// ISO 8601 extended format: `YYYY-MM-DD`, then `T`, `t` or a space and `hh:mm`, optional `:ss`
    /// with an optional `.` or `,` fraction of any length, then `Z`, `±hh:mm`, `±hhmm`, `±hh` or
    /// nothing (the time is then in `zone`). The date alone is a date, accepted only when no time is wanted.
    static func parseISO8601(_ cursor: inout DateTimeCursor, zone: LocalZone, includeTime: Bool) throws(Failure) -> CivilTime {
        var time = CivilTime(year: 0, month: 0, day: 0)
        time.year = try cursor.require(4, "year")
        try cursor.require(UInt8(ascii: "-"), after: "year")
        time.month = try cursor.require(2, "month")
        try cursor.require(UInt8(ascii: "-"), after: "month")
        time.day = try cursor.require(2, "day")
        if cursor.atEnd {
            try time.validate()
            guard !includeTime else { throw Failure("a date without a time; a datetime needs a time (2020-03-06T17:42:58Z)") }
            return time
        }
        guard cursor.take(UInt8(ascii: "T")) || cursor.take(UInt8(ascii: "t")) || cursor.take(UInt8(ascii: " ")) else {
            throw Failure("expected 'T' or a space between the date and the time at \(cursor.position)")
        }
        time.hour = try cursor.require(2, "hour")
        try cursor.require(UInt8(ascii: ":"), after: "hour")
        time.minute = try cursor.require(2, "minute")
        if cursor.take(UInt8(ascii: ":")) {
            time.second = try cursor.require(2, "second")
            if cursor.take(UInt8(ascii: ".")) || cursor.take(UInt8(ascii: ",")) {
                guard let micros = cursor.fraction() else { throw Failure("expected the digits of a fraction of a second at \(cursor.position)") }
                time.microsecond = micros
            }
        }
        let offset = try cursor.offset()
        try cursor.requireEnd()
        try time.validate()
        guard let offset else { return try zone.utc(time) }
        return try time.utc(offsetSeconds: offset)
    }
}
