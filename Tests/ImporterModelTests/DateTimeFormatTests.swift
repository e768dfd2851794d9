import ImporterTestSupport
import Foundation
@testable import ImporterModel
import Testing

/// What reading a value did: its stored text, or the reject reason.
private enum Outcome: Equatable {
    case stored(String)
    case refused(String)
}

/// Reads `text` with `format` as the mapper does (a pointer and a count).
private func outcome(_ format: String, _ text: String, date: Bool, zone: String) throws -> Outcome {
    let parser = try DateTimeFormat(pattern: format, timeZone: zone)
    let bytes = Array(text.utf8) + [0]
    var output: [UInt8] = []
    return bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return .refused("no bytes") }
        if parser.parse(base, count: buffer.count - 1, includeTime: !date, into: &output) {
            return .stored(String(decoding: output, as: UTF8.self))
        }
        #expect(output.isEmpty, "a refused value appends nothing")
        return .refused(parser.rejection(base, count: buffer.count - 1, includeTime: !date))
    }
}

private func stored(_ format: String, _ text: String, date: Bool = false, zone: String = "UTC") throws -> String? {
    if case .stored(let value) = try outcome(format, text, date: date, zone: zone) { value } else { nil }
}

private func reason(_ format: String, _ text: String, date: Bool = false, zone: String = "UTC") throws -> String {
    switch try outcome(format, text, date: date, zone: zone) {
    case .stored(let value): "parsed as \(value)"
    case .refused(let reason): reason
    }
}

/// Named formats, patterns with fractions and offsets, and the reasons a value is refused.
@Suite struct DateTimeFormsTests {
    @Test func epochSecondsIntegersDecimalsNegativeAndExponents() throws {
        #expect(try stored("epoch-s", "0") == "1970-01-01 00:00:00")
        #expect(try stored("epoch-s", "1583516578") == "2020-03-06 17:42:58")
        #expect(try stored("epoch-s", "+1583516578") == "2020-03-06 17:42:58")
        #expect(try stored("epoch-s", "1583516578.62") == "2020-03-06 17:42:58.620")
        #expect(try stored("epoch-s", "1583516578.000") == "2020-03-06 17:42:58")
        #expect(try stored("epoch-s", "-1") == "1969-12-31 23:59:59")
        #expect(try stored("epoch-s", "-0.5") == "1969-12-31 23:59:59.500")
        #expect(try stored("epoch-s", "-86400") == "1969-12-31 00:00:00")
        #expect(try stored("epoch-s", "1.5e9") == "2017-07-14 02:40:00")
        #expect(try stored("epoch-s", "15835165786E-1") == "2020-03-06 17:42:58.600")
        #expect(try stored("epoch-s", "-62167219200") == "0000-01-01 00:00:00")
        #expect(try stored("epoch-s", "253402300799.999999") == "9999-12-31 23:59:59.999999")
        // Digits beyond microseconds are truncated toward the past, on both sides of 1970.
        #expect(try stored("epoch-s", "0.0000019") == "1970-01-01 00:00:00.000001")
        #expect(try stored("epoch-s", "-0.0000001") == "1969-12-31 23:59:59.999999")
    }

    @Test func epochMillisecondsAndMicroseconds() throws {
        #expect(try stored("epoch-ms", "1583516578620") == "2020-03-06 17:42:58.620")
        #expect(try stored("epoch-ms", "1583516578000") == "2020-03-06 17:42:58")
        #expect(try stored("epoch-ms", "1583516578001") == "2020-03-06 17:42:58.001")
        #expect(try stored("epoch-ms", "1583516578620.5") == "2020-03-06 17:42:58.620500")
        #expect(try stored("epoch-ms", "-1") == "1969-12-31 23:59:59.999")
        #expect(try stored("epoch-ms", "-1583516578620") == "1919-10-28 06:17:01.380")
        #expect(try stored("epoch-ms", "1.58351657862e12") == "2020-03-06 17:42:58.620")
        #expect(try stored("epoch-us", "1583516578620123") == "2020-03-06 17:42:58.620123")
        #expect(try stored("epoch-us", "1583516578620000") == "2020-03-06 17:42:58.620")
        #expect(try stored("epoch-us", "1583516578000000") == "2020-03-06 17:42:58")
        #expect(try stored("epoch-us", "-1") == "1969-12-31 23:59:59.999999")
        #expect(try stored("epoch-us", "1.9") == "1970-01-01 00:00:00.000001")
        // A date attribute keeps the UTC date.
        #expect(try stored("epoch-ms", "1583516578620", date: true) == "2020-03-06")
        #expect(try stored("epoch-ms", "-1", date: true) == "1969-12-31")
        // Leap days.
        #expect(try stored("epoch-ms", "951782400000") == "2000-02-29 00:00:00")
        #expect(try stored("epoch-ms", "1582934400000") == "2020-02-29 00:00:00")
        #expect(try stored("epoch-ms", "4107542400000") == "2100-03-01 00:00:00")
    }

    @Test func epochGarbageIsRefusedWithAReason() throws {
        #expect(try reason("epoch-ms", "soon") == "expected a datetime in the format epoch-ms: 'soon' is not a number")
        #expect(try reason("epoch-ms", "") == "expected a datetime in the format epoch-ms: the value is empty")
        #expect(try reason("epoch-ms", "12a").hasSuffix("'12a' is not a number"))
        #expect(try reason("epoch-ms", "-").hasSuffix("'-' is not a number"))
        #expect(try reason("epoch-ms", ".5").hasSuffix("is not a number"))
        #expect(try reason("epoch-ms", "1 000").hasSuffix("is not a number"))
        #expect(try reason("epoch-ms", "2020-03-06").hasSuffix("is not a number"))
        #expect(try reason("epoch-s", "1e").hasSuffix("(the exponent has no digits)"))
        #expect(try reason("epoch-s", "1e400000").hasSuffix("'1e400000' is outside years 0000-9999"))
        #expect(try reason("epoch-s", "253402300800").hasSuffix("is outside years 0000-9999"))
        #expect(try reason("epoch-s", "-62167219201").hasSuffix("is outside years 0000-9999"))
        #expect(try reason("epoch-us", "99999999999999999999999999").hasSuffix("is outside years 0000-9999"))
        #expect(try stored("epoch-ms", "0e400000") == "1970-01-01 00:00:00")
    }

    @Test func iso8601WithSeparatorsOffsetsAndFractions() throws {
        #expect(try stored("iso8601", "2020-03-06T17:42:58.620Z") == "2020-03-06 17:42:58.620")
        #expect(try stored("iso8601", "2020-03-06 17:42:58.620Z") == "2020-03-06 17:42:58.620")
        #expect(try stored("iso8601", "2020-03-06t17:42:58z") == "2020-03-06 17:42:58")
        #expect(try stored("iso8601", "2020-03-06T17:42:58Z") == "2020-03-06 17:42:58")
        #expect(try stored("iso8601", "2020-03-06T17:42Z") == "2020-03-06 17:42:00")
        #expect(try stored("iso8601", "2020-03-06T17:42:58.1Z") == "2020-03-06 17:42:58.100")
        #expect(try stored("iso8601", "2020-03-06T17:42:58,25Z") == "2020-03-06 17:42:58.250")
        #expect(try stored("iso8601", "2020-03-06T17:42:58.000Z") == "2020-03-06 17:42:58")
        #expect(try stored("iso8601", "2020-03-06T17:42:58.0001Z") == "2020-03-06 17:42:58.000100")
        #expect(try stored("iso8601", "2020-03-06T17:42:58.123456789Z") == "2020-03-06 17:42:58.123456")
        #expect(try stored("iso8601", "2020-03-06T18:42:58.620+01:00") == "2020-03-06 17:42:58.620")
        #expect(try stored("iso8601", "2020-03-06T18:42:58+0100") == "2020-03-06 17:42:58")
        #expect(try stored("iso8601", "2020-03-06T18:42:58+01") == "2020-03-06 17:42:58")
        #expect(try stored("iso8601", "2020-03-06T12:12:58-05:30") == "2020-03-06 17:42:58")
        // Offsets that cross midnight, a month, a year; leap days.
        #expect(try stored("iso8601", "2020-03-06T22:00:00-05:00") == "2020-03-07 03:00:00")
        #expect(try stored("iso8601", "2020-03-01T00:30:00+01:00") == "2020-02-29 23:30:00")
        #expect(try stored("iso8601", "2019-03-01T00:30:00+01:00") == "2019-02-28 23:30:00")
        #expect(try stored("iso8601", "2019-12-31T23:30:00-01:00") == "2020-01-01 00:30:00")
        #expect(try stored("iso8601", "2020-01-01T00:30:00.5+01:00") == "2019-12-31 23:30:00.500")
        #expect(try stored("iso8601", "2000-02-29T12:00:00Z") == "2000-02-29 12:00:00")
        // No offset: the field's zone.
        #expect(try stored("iso8601", "2020-03-06T19:42:58.62", zone: "+02:00") == "2020-03-06 17:42:58.620")
        #expect(try stored("iso8601", "2020-03-06T17:42:58") == "2020-03-06 17:42:58")
        // Date attributes: the date alone, or the UTC date of a datetime.
        #expect(try stored("iso8601", "2020-02-29", date: true) == "2020-02-29")
        #expect(try stored("iso8601", "2020-03-06T23:30:00-01:00", date: true) == "2020-03-07")
    }

    @Test func iso8601GarbageIsRefusedWithAReason() throws {
        #expect(try reason("iso8601", "2020-03-06").hasSuffix("a date without a time; a datetime needs a time (2020-03-06T17:42:58Z)"))
        #expect(try reason("iso8601", "2019-02-29T12:00:00Z").hasSuffix("2019 is not a leap year (February has 28 days)"))
        #expect(try reason("iso8601", "1900-02-29", date: true).hasSuffix("1900 is not a leap year (February has 28 days)"))
        #expect(try reason("iso8601", "2020-04-31T00:00:00Z").hasSuffix("day 31 does not exist in month 4 (it has 30 days)"))
        #expect(try reason("iso8601", "2020-13-01T00:00:00Z").hasSuffix("month 13 does not exist"))
        #expect(try reason("iso8601", "2020-03-06T24:00:00Z").hasSuffix("hour 24 is outside 00-23"))
        #expect(try reason("iso8601", "2020-03-06T23:59:60Z").hasSuffix("second 60 is outside 00-59 (leap seconds are not kept)"))
        #expect(try reason("iso8601", "2020-03-06X17:42:58Z").hasSuffix("expected 'T' or a space between the date and the time at 'X17:42:58Z'"))
        #expect(try reason("iso8601", "2020-03-06T17:42:58+25:00").hasSuffix("offset 25:0 is out of range"))
        #expect(try reason("iso8601", "2020-03-06T17:42:58.Z").hasSuffix("expected the digits of a fraction of a second at 'Z'"))
        #expect(try reason("iso8601", "2020-03-06T17:42:58Z junk").hasSuffix("unexpected text ' junk'"))
        #expect(try reason("iso8601", "1583516578620").hasSuffix("expected '-' after the year at '516578620'"))
        #expect(try reason("iso8601", "0000-01-01T00:30:00+01:00").hasSuffix("the UTC time is outside years 0000-9999"))
        #expect(try reason("iso8601", "Fri, 06 Mar 2020").hasSuffix("expected 4 digits of the year at 'Fri, 06 Mar …'"))
    }

    @Test func rfc2822AsRSSWritesIt() throws {
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 17:42:58 +0000") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "6 Mar 2020 17:42:58 GMT") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "  fri,6 mar 2020 17:42:58 ut  ") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 17:42 Z") == "2020-03-06 17:42:00")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 17:42:58 UTC") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 12:42:58 EST") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 13:42:58 EDT") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 11:42:58 CST") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 12:42:58 CDT") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 10:42:58 MST") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 11:42:58 MDT") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 09:42:58 PST") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 10:42:58 PDT") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Fri, 06 Mar 2020 17:42:58 +0000 (UTC)") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Sat, 07 Mar 2020 01:00:00 +0200") == "2020-03-06 23:00:00")
        #expect(try stored("rfc2822", "Thu, 31 Dec 2020 23:00:00 -0200") == "2021-01-01 01:00:00")
        #expect(try stored("rfc2822", "Thu, 31 Dec 2020 23:00:00 -0200", date: true) == "2021-01-01")
        // 2- and 3-digit years (RFC 2822 §4.3).
        #expect(try stored("rfc2822", "06 Mar 20 17:42:58 +0000") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "06 Mar 49 17:42:58 +0000") == "2049-03-06 17:42:58")
        #expect(try stored("rfc2822", "06 Mar 50 17:42:58 +0000") == "1950-03-06 17:42:58")
        #expect(try stored("rfc2822", "06 Mar 99 17:42:58 +0000") == "1999-03-06 17:42:58")
        #expect(try stored("rfc2822", "06 Mar 120 17:42:58 +0000") == "2020-03-06 17:42:58")
        #expect(try stored("rfc2822", "Sat, 29 Feb 2020 00:00:00 +0000") == "2020-02-29 00:00:00")
    }

    @Test func rfc2822GarbageIsRefusedWithAReason() throws {
        #expect(try reason("rfc2822", "Fry, 06 Mar 2020 17:42:58 +0000").hasSuffix("'fry' is not a day of the week (Mon … Sun)"))
        #expect(try reason("rfc2822", "06 Mrz 2020 17:42:58 +0000").hasSuffix("expected a month name (Jan … Dec) at 'mrz'"))
        #expect(try reason("rfc2822", "06 Mar 2020 17:42:58").hasSuffix("expected a space after the time at the end"))
        #expect(try reason("rfc2822", "06 Mar 2020 17:42:58 CET").hasSuffix("zone 'CET' is not ±hhmm, UT, UTC, GMT, Z or a US zone (EST … PDT)"))
        #expect(try reason("rfc2822", "06 Mar 2020 17:42:58 +01:00").hasSuffix("expected a zone of 4 digits (+hhmm) at ':00'"))
        #expect(try reason("rfc2822", "29 Feb 2019 17:42:58 +0000").hasSuffix("2019 is not a leap year (February has 28 days)"))
        #expect(try reason("rfc2822", "06 Mar 2020 17:42:58.5 +0000").hasSuffix("expected a space after the time at '.5 +0000'"))
        #expect(try reason("rfc2822", "06 Mar 2 17:42:58 +0000").hasSuffix("expected a year of 2 to 4 digits at '2 17:42:58 +…'"))
        #expect(try reason("rfc2822", "2020-03-06T17:42:58Z").hasSuffix("expected a space after the day at '20-03-06T17:…'"))
    }

    @Test func patternsKeepWorkingAndReadFractionsAndOffsets() throws {
        #expect(try stored(DateTimeFormat.canonicalDateTime, "2024-07-21 08:12:05") == "2024-07-21 08:12:05")
        #expect(try stored(DateTimeFormat.canonicalDate, "2024-07-21", date: true) == "2024-07-21")
        #expect(try stored("%d/%m/%Y %H:%M", "21/07/2024 09:12", zone: "+01:00") == "2024-07-21 08:12:00")
        #expect(try stored("%Y%m%d%H%M%S", "20240721081205") == "2024-07-21 08:12:05")
        #expect(try stored("%Y-%m-%dT%H:%M:%S.%f%z", "2020-03-06T18:42:58.62+0100") == "2020-03-06 17:42:58.620")
        #expect(try stored("%Y-%m-%dT%H:%M:%S.%f%z", "2020-03-06T17:42:58.620Z", zone: "+05:00") == "2020-03-06 17:42:58.620")
        #expect(try stored("%Y-%m-%d %H:%M:%S %z", "2020-01-01 00:30:00 +01:00") == "2019-12-31 23:30:00")
        #expect(try stored("%Y-%m-%d %H:%M:%S.%f", "2020-03-06 17:42:58.000620") == "2020-03-06 17:42:58.000620")
        #expect(try reason("%Y-%m-%d %H:%M:%S", "2024-07-21T08:12:05").hasSuffix("expected ' ' at 'T08:12:05'"))
        #expect(try reason("%Y-%m-%d %H:%M:%S.%f", "2020-03-06 17:42:58").hasSuffix("expected '.' at the end"))
        #expect(try reason("%Y-%m-%d %H:%M:%S%z", "2020-03-06 17:42:58").hasSuffix("expected an offset (Z, ±hh:mm, ±hhmm or ±hh) at the end"))
    }

    @Test func formatsAreValidatedByName() {
        for name in DateTimeFormat.names { #expect(DateTimeFormat.problem(with: name) == nil) }
        #expect(DateTimeFormat.problem(with: "%Y-%m-%dT%H:%M:%S.%f%z") == nil)
        #expect(DateTimeFormat.problem(with: "epoch-sec") == "format 'epoch-sec' is unknown: give a named format (epoch-s, epoch-ms, epoch-us, iso8601, rfc2822) or a pattern of %Y %m %d %H %M %S %f %z %%")
        #expect(DateTimeFormat.problem(with: "ISO8601")?.hasPrefix("format 'ISO8601' is unknown") == true)
        #expect(DateTimeFormat.problem(with: "%Y-%m-%d %Q")?.hasPrefix("format '%Y-%m-%d %Q' has an unknown directive") == true)
        #expect(DateTimeFormat.problem(with: "%Y-%m") == "format '%Y-%m' needs %Y, %m and %d")
        #expect(DateTimeFormat.problem(with: "%Y-%m-%d %H:%M:%S %H") == "format '%Y-%m-%d %H:%M:%S %H' has %H more than once")
        #expect(DateTimeFormat.problem(with: "%Y-%m-%d %H:%M.%f") == "format '%Y-%m-%d %H:%M.%f' has %f (fraction of a second) without %S")
        #expect(DateTimeFormat.problem(with: "%Y-%m-%d %S%f%H")?.contains("%f takes a variable number of digits") == true)
        #expect(DateTimeFormat.problem(with: "%z%Y-%m-%d")?.contains("%z takes a variable number of digits") == true)
        #expect(throws: ModelError.self) { _ = try DateTimeFormat(pattern: "epoch") }
    }

    @Test func storedTextReadsBackAsSecondsWithItsFraction() {
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "2020-03-06 17:42:58") == 1_583_516_578)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "2020-03-06 17:42:58.620") == 1_583_516_578.62)
        #expect(abs((DateTimeFormat.secondsSinceEpoch(storedUTC: "1969-12-31 23:59:59.999999") ?? 0) + 0.000001) < 1e-9)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "2020-03-06 17:42:58.") == nil)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "2020-03-06 17:42:58.12a") == nil)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "2020-03-06 17:42:58.1234567") == nil)
    }
}
