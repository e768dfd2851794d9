import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Reads every record of a feed text with the fireball mapping; returns the raw records' texts.
private func readAll(_ text: String, requesting fields: [String] = ["date", "energy", "lat", "lat-dir", "vx"], bufferSize: Int = 1 << 20) throws -> (FeedHeader, [[String]]) {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = try directory.write("feed.json", text)
    let reader = NASAColumnarReader(source: try ByteSource(path: path), bufferSize: bufferSize)
    let header = try reader.open(requesting: fields)
    var record = RawRecord(slotCount: fields.count)
    var rows: [[String]] = []
    while try reader.next(into: &record) {
        rows.append(fields.indices.map { slot in record.slots[slot].kind == .absent ? "<absent>" : record.text(of: slot) })
    }
    return (header, rows)
}

private func feedError(_ text: String) -> FeedError? {
    do {
        _ = try readAll(text)
        return nil
    } catch let error as FeedError {
        return error
    } catch {
        return nil
    }
}

@Suite struct NASAColumnarReaderTests {
    @Test func mapsFieldsByNameNotPosition() throws {
        let text = fireballFeed([#"["4.5","2024-09-04 16:39:40","+12.8","N","18.0"]"#], fields: #"["energy","date","vel","lat-dir","lat"]"#)
        let (header, rows) = try readAll(text)
        #expect(header.supplied == [true, true, true, true, false])
        #expect(rows == [["2024-09-04 16:39:40", "4.5", "18.0", "N", "<absent>"]])
    }

    @Test func acceptsCountAsStringOrNumber() throws {
        let row = #"["2024-09-04 16:39:40","4.5","0.15","18.0","N","122.9","E","26.0","12.8"]"#
        #expect(try readAll(fireballFeed([row], count: "\"1\"")).0.declaredCount == 1)
        #expect(try readAll(fireballFeed([row], count: "1")).0.declaredCount == 1)
    }

    @Test func reportsCountMismatchAtTheCount() {
        let row = #"["2024-09-04 16:39:40","4.5","0.15","18.0","N","122.9","E","26.0","12.8"]"#
        guard case .countMismatch(let location, let declared, let actual)? = feedError(fireballFeed([row, row], count: "\"3\"")) else {
            Issue.record("expected a count mismatch")
            return
        }
        #expect(declared == 3)
        #expect(actual == 2)
        #expect(location.line == 1)
    }

    @Test(arguments: [
        ("{}", "no 'fields' and no 'data' member"),
        (#"{"signature":{"version":"1.2"}}"#, "no 'fields' and no 'data' member"),
        (#"{"signature":{"version":"1.2"},"count":"3"}"#, "no 'fields' and no 'data' member"),
        (#"{"signature":{"version":"1.2"},"count":"1","fields":["date"]}"#, "no 'data' member"),
    ])
    func documentsWithoutTheAPIShapeAreShapeErrors(text: String, message: String) {
        guard case .shape(let location, let found)? = feedError(text) else {
            Issue.record("expected a shape error for \(text)")
            return
        }
        #expect(found.contains(message), "\(found)")
        #expect(location.line == 1 && location.column == 1)
    }

    @Test(arguments: [
        (#"{"error":"rate limited"}"#, "rate limited", 2),
        (#"{"signature":{"version":"1.2"},"message":"invalid parameter 'date-min'"}"#, "invalid parameter 'date-min'", 32),
        (#"{"code":"400", "error":{"reason":"x"}}"#, "'error' is not a string", 16),
    ])
    func errorAnswersFailWithTheirMessage(text: String, message: String, column: Int) {
        guard case .errorAnswer(let location, let found)? = feedError(text) else {
            Issue.record("expected an error answer for \(text)")
            return
        }
        #expect(found == message)
        #expect(location.column == column)
        #expect(FeedError.errorAnswer(location, message: found).description.contains("error answer, not data: \(message)"))
    }

    @Test func readsEmptyResponses() throws {
        let (header, rows) = try readAll(#"{"signature":{"source":"NASA/JPL Fireball Data API","version":"1.2"},"count":"0"}"#)
        #expect(rows.isEmpty)
        #expect(header.supplied.allSatisfy { !$0 })
        #expect(header.declaredCount == 0)
    }

    @Test func rejectsUnknownMajorVersions() {
        guard case .unsupportedVersion(_, let version, _)? = feedError(fireballFeed([], version: "2.0")) else {
            Issue.record("expected an unsupported version")
            return
        }
        #expect(version == "2.0")
        #expect(feedError(fireballFeed([], version: "1.5")) == nil)
    }

    @Test func refusesDataBeforeFields() {
        let text = #"{"count":"1","data":[["2024-09-04 16:39:40"]],"fields":["date"]}"#
        guard case .shape(_, let message)? = feedError(text) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(message.contains("before 'fields'"))
    }

    @Test func namesTheLocationOfSyntaxErrors() {
        let text = "{\"count\":\"1\",\"fields\":[\"date\"],\n\"data\":[[\"2024-09-04 16:39:40\"],\n  [\"2024-09-05\" \"x\"]]}"
        guard case .syntax(let location, let expected, let found)? = feedError(text) else {
            Issue.record("expected a syntax error")
            return
        }
        #expect(location.line == 3)
        #expect(location.column == 17)
        #expect(expected.contains("','"))
        #expect(found == "'\"'")
    }

    @Test func failsOnTruncatedInput() {
        let text = "{\"count\":\"2\",\"fields\":[\"date\"],\"data\":[[\"2024-09-04 16:39:40\"],[\"2024-09"
        guard case .syntax(let location, _, let found)? = feedError(text) else {
            Issue.record("expected a syntax error")
            return
        }
        #expect(found == "end of input")
        #expect(location.line == 1)
    }

    @Test func rejectsRowsOfTheWrongLength() {
        let text = fireballFeed([#"["2024-09-04 16:39:40","4.5"]"#])
        guard case .shape(let location, let message)? = feedError(text) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(message.contains("2 values but there are 9 fields"))
        #expect(location.recordIndex == 0)
    }

    @Test func decodesEscapesAndUnicode() throws {
        let text = #"{"count":1,"fields":["date","energy"],"data":[["caf\u00e9 \ud83d\ude80 \"q\" \\ \/ é","1"]]}"#
        let (_, rows) = try readAll(text, requesting: ["date"])
        #expect(rows == [["café 🚀 \"q\" \\ / é"]])
    }

    @Test func rejectsInvalidUTF8() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var bytes = Array(#"{"count":1,"fields":["date"],"data":[["ab"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#""]]}"#.utf8)
        let path = directory.path("bad.json")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = NASAColumnarReader(source: try ByteSource(path: path))
        _ = try reader.open(requesting: ["date"])
        var record = RawRecord(slotCount: 1)
        #expect(throws: FeedError.self) { _ = try reader.next(into: &record) }
    }

    @Test func rejectsTrailingGarbage() {
        #expect(feedError(fireballFeed([]) + " {") != nil)
    }

    /// A 16-byte buffer forces every unit to be refilled and retried many times.
    @Test func readsTheSameRecordsWithATinyBuffer() throws {
        let text = try String(contentsOfFile: sample("fireball-2024.json"), encoding: .utf8)
        let fields = ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"]
        let large = try readAll(text, requesting: fields)
        let tiny = try readAll(text, requesting: fields, bufferSize: 16)
        #expect(large.1.count == 10)
        #expect(large.1 == tiny.1)
    }

    @Test func readsStandardInputLikeAFile() throws {
        // ByteSource("-") reads fd 0; here it is checked on a pipe through the binary in the
        // integration tests. The name used in locations is <stdin>.
        let source = try ByteSource(path: "-")
        #expect(source.name == "<stdin>")
        #expect(source.totalBytes == nil)
    }

    @Test func reportsMissingFiles() {
        #expect(throws: FeedError.self) { _ = try ByteSource(path: "/nonexistent/feed.json") }
    }
}
