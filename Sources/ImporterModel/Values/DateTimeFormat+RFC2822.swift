extension DateTimeFormat {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let weekdays: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    /// RFC 2822 §4.3 zone names (hours east of UTC); `UTC` as feeds write it. `-0000` and these
    /// all mean what they say: the instant is kept, the zone is not.
    static let zoneNames: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0,
        "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
    ]

    /// RFC 2822 date-time (RSS `pubDate`): `[day-of-week ","] d[d] Mon yyyy hh:mm[:ss] zone`, spaces
    /// or tabs between, optional leading and trailing whitespace and a trailing `(comment)`. The
    /// weekday must be a weekday's name; it is not checked against the date. A 2-digit year is
    /// 1950-2049 and a 3-digit one adds 1900 (RFC 2822 §4.3).
    static func parseRFC2822(_ cursor: inout DateTimeCursor) throws(Failure) -> CivilTime {
        cursor.skipSpaces()
        let start = cursor.index
        let first = cursor.word()
        if !first.isEmpty {
            guard weekdays.contains(first) else { throw Failure("'\(first)' is not a day of the week (Mon … Sun)") }
            cursor.skipSpaces()
            try cursor.require(UInt8(ascii: ","), after: "day of the week")
            cursor.skipSpaces()
        } else {
            cursor.index = start
        }
        var time = CivilTime(year: 0, month: 0, day: 0)
        guard let day = cursor.digits(2) ?? cursor.digits(1) else { throw Failure("expected the day of the month at \(cursor.position)") }
        time.day = day
        try requireSpace(&cursor, after: "day")
        let month = cursor.word()
        guard let index = months.firstIndex(of: month) else {
            throw Failure("expected a month name (Jan … Dec) at \(month.isEmpty ? cursor.position : "'\(month)'")")
        }
        time.month = index + 1
        try requireSpace(&cursor, after: "month")
        time.year = try year(&cursor)
        try requireSpace(&cursor, after: "year")
        time.hour = try cursor.require(2, "hour")
        try cursor.require(UInt8(ascii: ":"), after: "hour")
        time.minute = try cursor.require(2, "minute")
        if cursor.take(UInt8(ascii: ":")) { time.second = try cursor.require(2, "second") }
        try requireSpace(&cursor, after: "time")
        let offset = try zone(&cursor)
        cursor.skipSpaces()
        if cursor.take(UInt8(ascii: "(")) {
            while let byte = cursor.current, byte != UInt8(ascii: ")") { cursor.index += 1 }
            try cursor.require(UInt8(ascii: ")"), after: "comment")
            cursor.skipSpaces()
        }
        try cursor.requireEnd()
        try time.validate()
        return try time.utc(offsetSeconds: offset)
    }

    private static func requireSpace(_ cursor: inout DateTimeCursor, after what: String) throws(Failure) {
        guard cursor.skipSpaces() else { throw Failure("expected a space after the \(what) at \(cursor.position)") }
    }

    /// 4 digits as they are; 2 digits 00-49 → 20xx, 50-99 → 19xx; 3 digits + 1900.
    private static func year(_ cursor: inout DateTimeCursor) throws(Failure) -> Int {
        var length = 0
        while let byte = cursor.current, byte &- 0x30 < 10 { length += 1; cursor.index += 1 }
        cursor.index -= length
        switch length {
        case 4: return cursor.digits(4) ?? 0
        case 3: return (cursor.digits(3) ?? 0) + 1900
        case 2:
            let value = cursor.digits(2) ?? 0
            return value < 50 ? 2000 + value : 1900 + value
        default: throw Failure("expected a year of 2 to 4 digits at \(cursor.position)")
        }
    }

    /// `±hhmm` or a zone name, as seconds east of UTC.
    private static func zone(_ cursor: inout DateTimeCursor) throws(Failure) -> Int {
        if let sign = cursor.current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            cursor.index += 1
            guard let hours = cursor.digits(2), let minutes = cursor.digits(2), minutes < 60 else {
                throw Failure("expected a zone of 4 digits (+hhmm) at \(cursor.position)")
            }
            let seconds = hours * 3600 + minutes * 60
            return sign == UInt8(ascii: "-") ? -seconds : seconds
        }
        let name = cursor.word()
        guard let hours = zoneNames[name] else {
            throw Failure(name.isEmpty ? "expected a zone (+hhmm, GMT, UT, EST …) at \(cursor.position)" : "zone '\(name.uppercased())' is not ±hhmm, UT, UTC, GMT, Z or a US zone (EST … PDT)")
        }
        return hours * 3600
    }
}
