import ImporterTestSupport
import Foundation
@testable import ImporterKit
import PropertyBased
import Testing

/// Integers are mapped from their digits into 64 bits, never through a double (which rounds past
/// 2^53: `1234567890123456789` and `…790` would both become `…768`), in every format.
@Suite struct IntegerExactnessTests {
    static let entity = EntityDescription(
        name: "Post", tableName: "post",
        attributes: [AttributeDescription(name: "post_id", type: .integer, isOptional: false), AttributeDescription(name: "likes", type: .integer)],
        uniqueKey: ["post_id"], tombstoneAttributes: [])

    /// The feed text holding `rows` (key, likes) in `format`, and the mapping that reads it.
    static func feed(_ rows: [(Int64, Int64)], format: FeedFormat) -> (text: String, mapping: FeedMapping) {
        switch format {
        case .csv:
            let text = "post_id,likes\n" + rows.map { "\($0.0),\($0.1)\n" }.joined()
            return (text, mapping(format, ["post_id", "likes"]))
        case .xml:
            let text = "<posts>" + rows.map { "<post id=\"\($0.0)\"><likes>\($0.1)</likes></post>" }.joined() + "</posts>"
            var mapping = mapping(format, ["@id", "likes"])
            mapping.records = "/posts/post"
            return (text, mapping)
        case .ndjson:
            return (rows.map { #"{"id":\#($0.0),"likes":\#($0.1)}"# + "\n" }.joined(), mapping(format, ["/id", "/likes"]))
        default:
            // Strings, as APIs often quote 64-bit ids for JavaScript's sake.
            return ("[" + rows.map { #"{"id":"\#($0.0)","likes":\#($0.1)}"# }.joined(separator: ",") + "]", mapping(.json, ["/id", "/likes"]))
        }
    }

    static func mapping(_ format: FeedFormat, _ fields: [String]) -> FeedMapping {
        FeedMapping(name: "posts", entity: "Post", format: format,
                    fields: [FieldMapping(attribute: "post_id", field: fields[0]), FieldMapping(attribute: "likes", field: fields[1])])
    }

    /// The values mapped from `text`, or the rejects' reasons.
    static func mapped(_ text: String, _ mapping: FeedMapping) throws -> (values: [[Value]], rejects: [String]) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("feed", text)
        let reader = try FeedReaders.make(for: mapping, source: try ByteSource(path: path))
        var mapper = try RecordMapper(entity: entity, mapping: mapping)
        try mapper.configure(header: try reader.open(requesting: mapper.requestedFields), sourceName: path)
        var batch = mapper.makeBatch(capacity: 16)
        var record = mapper.makeRawRecord()
        var rejects: [String] = []
        while try reader.next(into: &record) {
            if let reject = mapper.map(record, into: &batch) { rejects.append(reject.reason) }
        }
        let values = (0 ..< batch.count).map { index in (0 ..< batch.columns.count).map { batch.publicValue(record: index, position: $0) } }
        return (values, rejects)
    }

    static let formats: [FeedFormat] = [.json, .ndjson, .csv, .xml]

    @Test(arguments: formats)
    func snowflakeIdsStayDistinctAndExact(format: FeedFormat) throws {
        let rows: [(Int64, Int64)] = [(1_234_567_890_123_456_789, 9_007_199_254_740_993), (1_234_567_890_123_456_790, Int64.min), (Int64.max, -1)]
        let (text, mapping) = Self.feed(rows, format: format)
        let (values, rejects) = try Self.mapped(text, mapping)
        #expect(rejects.isEmpty, "\(rejects)")
        #expect(values == rows.map { [.integer($0.0), .integer($0.1)] })
    }

    @Test(arguments: formats)
    func anIntegerOutsideSixtyFourBitsIsALocatedReject(format: FeedFormat) throws {
        var (text, mapping) = Self.feed([(1, 2)], format: format)
        text = text.replacingOccurrences(of: "2", with: "99999999999999999999")
        let (values, rejects) = try Self.mapped(text, mapping)
        #expect(values.isEmpty)
        #expect(rejects == ["the integer 99999999999999999999 is outside the 64-bit range (-9223372036854775808 to 9223372036854775807)"])
    }

    /// A scale or an offset still goes through a double: past 2^53 that would lose digits, so it
    /// is refused rather than stored rounded.
    @Test func aScaledIntegerPastTwoToTheFiftyThreeIsRefused() throws {
        let (text, unscaled) = Self.feed([(1, 9_007_199_254_740_993), (2, 12)], format: .ndjson)
        var mapping = unscaled
        mapping.fields[1].scale = 10
        let (values, rejects) = try Self.mapped(text, mapping)
        #expect(values == [[.integer(2), .integer(120)]])
        #expect(rejects.count == 1 && rejects[0].contains("cannot be scaled exactly"), "\(rejects)")
    }

    @Test func anyInt64SurvivesEveryFormat() async {
        await propertyCheck(count: 200, input: Gen.int64(in: Int64.min ... Int64.max), Gen.int64(in: Int64.min ... Int64.max)) { key, value in
            for format in Self.formats {
                let (text, mapping) = Self.feed([(key, value)], format: format)
                let mapped = try? Self.mapped(text, mapping)
                #expect(mapped?.values == [[.integer(key), .integer(value)]], "\(format) \(key) \(value) \(mapped?.rejects ?? [])")
            }
        }
    }
}
