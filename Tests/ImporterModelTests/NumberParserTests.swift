import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

@Suite struct NumberParserTests {
    @Test(arguments: [
        ("758", 758.0), ("0.073", 0.073), ("32.75", 32.75), ("+12.8", 12.8), ("-7.9", -7.9),
        ("2.0e10", 2.0e10), ("1E-5", 1e-5), ("0", 0), ("-0.0", -0.0), ("007.50", 7.5),
        ("123456789012345678901234567890", 123456789012345678901234567890.0),
        ("0.1000000000000000055511151231257827", 0.1), ("1.7976931348623157e308", 1.7976931348623157e308),
        ("4.9e-324", 4.9e-324), (".5", 0.5), ("5.", 5.0),
    ])
    func parsesNumbers(text: String, expected: Double) {
        #expect(NumberParser.double(text) == expected)
    }

    @Test(arguments: ["", "+", "-", "1e", "1e+", "abc", "1.2.3", " 1", "1 ", "inf", "nan", "0x10", "1,5", ".", "1e999", "--1"])
    func rejectsNonNumbers(text: String) {
        #expect(NumberParser.double(text) == nil)
    }

    /// The fast path must round exactly like strtod for every input it accepts.
    @Test func matchesStrtodOnRandomDecimals() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let point = Int.random(in: 0...digits, using: &generator)
            if point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -30...30, using: &generator))" }
            if text.hasPrefix(".") && text.count == 1 { continue }
            let expected = strtod(text, nil)
            #expect(NumberParser.double(text) == expected, "\(text)")
        }
    }

    @Test func parsesIntegers() {
        func integer(_ text: String) -> Int64? {
            var text = text
            return text.withUTF8 { NumberParser.integer($0.baseAddress!, count: $0.count) }
        }
        #expect(integer("42") == 42)
        #expect(integer("+42") == 42)
        #expect(integer("-9223372036854775808") == Int64.min)
        #expect(integer("9223372036854775807") == Int64.max)
        #expect(integer("9223372036854775808") == nil)
        #expect(integer("4.2") == nil)
        #expect(integer("") == nil)
    }
}

@Suite struct DateTimeFormatTests {
    func parse(_ text: String, pattern: String = DateTimeFormat.canonicalDateTime, zone: String = "UTC", time: Bool = true) throws -> String? {
        let format = try DateTimeFormat(pattern: pattern, timeZone: zone)
        var output: [UInt8] = []
        var text = text
        let ok = text.withUTF8 { format.parse($0.baseAddress!, count: $0.count, includeTime: time, into: &output) }
        return ok ? String(decoding: output, as: UTF8.self) : nil
    }

    @Test func parsesCanonicalDatetimes() throws {
        #expect(try parse("2026-04-08 01:58:47") == "2026-04-08 01:58:47")
        #expect(try parse("2024-02-29 23:59:59") == "2024-02-29 23:59:59")
    }

    @Test(arguments: ["2023-02-29 00:00:00", "2026-13-01 00:00:00", "2026-04-31 00:00:00", "2026-04-08 24:00:00",
                      "2026-04-08 01:60:00", "2026-04-08T01:58:47", "2026-04-08 01:58", "26-04-08 01:58:47", "2026-04-08 01:58:47Z", ""])
    func rejectsImpossibleOrMisformattedDates(text: String) throws {
        #expect(try parse(text) == nil)
    }

    @Test func shiftsZonesToUTC() throws {
        #expect(try parse("08/04/2026 02:30", pattern: "%d/%m/%Y %H:%M", zone: "+02:00") == "2026-04-08 00:30:00")
        #expect(try parse("2026-12-31 23:30:00", zone: "-01:00") == "2027-01-01 00:30:00")
        #expect(try parse("2024-03-01 00:10:00", zone: "+00:30") == "2024-02-29 23:40:00")
    }

    @Test func parsesDates() throws {
        #expect(try parse("2026-04-08", pattern: DateTimeFormat.canonicalDate, time: false) == "2026-04-08")
    }

    @Test func rejectsBadPatternsAndZones() {
        #expect(DateTimeFormat.problem(with: "%Y-%q") != nil)
        #expect(DateTimeFormat.problem(with: "%H:%M") != nil)
        #expect(DateTimeFormat.offsetSeconds("Europe/Paris") == nil)
        #expect(DateTimeFormat.offsetSeconds("+05:30") == 19800)
    }
}
