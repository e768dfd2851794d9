import ImporterTestSupport
import Foundation
@testable import ImporterModel
import PropertyBased
import Testing

@Suite struct DateTimeFormatPropertyTests {
    /// 1600-01-01 (after the Gregorian cutover Foundation's calendar keeps) to 9999-12-31, in ms.
    static let milliseconds = Gen.int(in: -11_676_096_000_000...253_402_300_799_999)

    private static func stored(_ format: String, _ text: String, date: Bool = false) -> String? {
        guard let parser = try? DateTimeFormat(pattern: format) else { return nil }
        var output: [UInt8] = []
        let bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { parser.parse($0, count: buffer.count, includeTime: !date, into: &output) } ?? false
        }
        return parsed ? String(decoding: output, as: UTF8.self) : nil
    }

    private static let foundation: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }()

    /// epoch-ms → stored text is Foundation's UTC rendering of the same instant (the second from
    /// DateFormatter, the milliseconds as given, `.fff` only when not zero), and reads back as it.
    @Test func epochMillisecondsAgreeWithFoundation() async {
        await propertyCheck(count: 400, input: Self.milliseconds) { ms in
            let second = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let millis = ms - second * 1000
            let expected = Self.foundation.string(from: Date(timeIntervalSince1970: Double(second)))
                + (millis == 0 ? "" : "." + String(String(millis + 1000).dropFirst()))
            let text = Self.stored("epoch-ms", String(ms))
            #expect(text == expected, "\(ms)")
            #expect(Self.stored("epoch-ms", String(ms), date: true) == String(expected.prefix(10)))
            let back = text.flatMap { DateTimeFormat.secondsSinceEpoch(storedUTC: $0) } ?? .nan
            #expect(abs(back - Double(ms) / 1000) < 1e-3, "\(ms)")
        }
    }

    /// Stored text orders as the instants do, fractions and whole seconds mixed.
    @Test func textOrderIsTimeOrder() async {
        let micros = Gen.int(in: -2_000_000...2_000_000).map { $0 * ($0 % 3 == 0 ? 1_000_000 : $0 % 3 == 1 ? 1000 : 1) + 1_583_516_578_000_000 }
        await propertyCheck(count: 400, input: micros, micros) { a, b in
            guard let x = Self.stored("epoch-us", String(a)), let y = Self.stored("epoch-us", String(b)) else {
                Issue.record("\(a) or \(b) was refused")
                return
            }
            #expect((x < y) == (a < b), "\(x) \(y)")
            #expect((x == y) == (a == b), "\(x) \(y)")
        }
    }

    /// An instant written as ISO 8601 local time with any offset reads back as the same instant.
    @Test func iso8601OffsetsNameTheSameInstant() async {
        let micros = Gen.int(in: -11_676_096_000_000_000...253_402_214_399_999_999)
        await propertyCheck(count: 400, input: micros, Gen.int(in: -(23 * 60 + 59)...(23 * 60 + 59))) { instant, offsetMinutes in
            var local: [UInt8] = []
            CivilTime(microsecondsSinceEpoch: instant + offsetMinutes * 60_000_000).append(to: &local, includeTime: true)
            let magnitude = abs(offsetMinutes)
            let offset = (offsetMinutes < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
            let text = String(decoding: local, as: UTF8.self).replacingOccurrences(of: " ", with: "T") + offset
            #expect(Self.stored("iso8601", text) == Self.stored("epoch-us", String(instant)), "\(text)")
        }
    }
}
