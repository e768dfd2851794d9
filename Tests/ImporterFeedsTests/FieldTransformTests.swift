import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
import Testing

/// Value transforms and repeated values, through a feed read and mapped as an import does.
@Suite struct FieldTransformTests {
    static func model(_ fields: String, attributes: String) throws -> Model {
        try ModelFile.parse("""
            entities:
            - name: Item
              key: [code]
              attributes:
              - {name: code, type: text, required: true}
            \(attributes)
            feeds:
            - name: items
              format: ndjson
              fields:
              - {attribute: code, field: id}
            \(fields)
            """, name: "model.yaml")
    }

    /// Maps NDJSON `lines`; returns each record's values by attribute name, and the rejects.
    static func map(_ lines: [String], _ model: Model, window: Int = 10_000, throughPipe: Bool = false)
        throws -> (records: [[String: Value]], rejects: [Reject], warnings: [String]) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let text = lines.joined(separator: "\n") + "\n"
        let path = throughPipe ? try pipe(text, in: directory) : try directory.write("feed.ndjson", text)
        let entity = try #require(model.entities.first)
        let feed = try MappedFeed(FeedInput(path: path, mapping: try #require(model.feeds.first)), entity: entity)
        feed.presenceWindow = window
        var records: [[String: Value]] = []
        var rejects: [Reject] = []
        try feed.read(batchSize: 2) { rejects.append($0) } onBatch: { batch in
            for index in 0..<batch.count {
                records.append(Dictionary(uniqueKeysWithValues: batch.columns.enumerated().map { position, attribute in
                    (entity.attributes[attribute].name, batch.publicValue(record: index, position: position))
                }))
            }
        }
        return (records, rejects, feed.warnings)
    }

    /// A named pipe in `directory` that a thread fills with `text` once it is opened.
    static func pipe(_ text: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("feed.ndjson")
        #expect(mkfifo(path, 0o600) == 0)
        Thread {
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.write(Data(text.utf8))
            try? handle.close()
        }.start()
        return path
    }

    @Test func captureSplitLookupOffsetAndNegate() throws {
        let model = try Self.model("""
              - {attribute: page, field: url, capture: "([^/]+)$"}
              - {attribute: lat, field: point, split: " ", part: 0}
              - {attribute: lon, field: point, split: " ", part: -1}
              - {attribute: kind, field: magType, lookup: {mb: body wave, mw: moment, ml: null}}
              - {attribute: depth, field: elevation, scale: 0.001, negate: true}
              - {attribute: kelvin, field: celsius, offset: 273.15}
            """, attributes: """
              - {name: page, type: text}
              - {name: lat, type: real}
              - {name: lon, type: real}
              - {name: kind, type: text}
              - {name: depth, type: real}
              - {name: kelvin, type: real}
            """)
        let (records, rejects, _) = try Self.map([
            #"{"id":"a","url":"https://example.org/events/us7000abcd","point":"19.41 -155.28","magType":"mb","elevation":-1500,"celsius":20}"#,
            #"{"id":"b","url":"no-slash","point":"1 2","magType":"ml","elevation":250,"celsius":-273.15}"#,
            #"{"id":"c","url":"x/y","point":"7","magType":"zz","elevation":0,"celsius":0}"#,
        ], model)
        #expect(records.count == 2)
        #expect(records[0]["page"] == .text("us7000abcd"))
        #expect(records[0]["lat"] == .real(19.41))
        #expect(records[0]["lon"] == .real(-155.28))
        #expect(records[0]["kind"] == .text("body wave"))
        #expect(records[0]["depth"] == .real(1.5))
        #expect(records[0]["kelvin"] == .real(293.15))
        #expect(records[1]["page"] == .text("no-slash"))
        #expect(records[1]["kind"] == .null)
        #expect(records[1]["depth"] == .real(-0.25))
        #expect(rejects.count == 1)
        #expect(rejects.first?.reason.contains("'zz' is not in the lookup table") == true, "\(rejects)")
    }

    @Test func modelCheckRefusesBadTransforms() {
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, capture: \"([\"}", attributes: "  - {name: page, type: text}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, capture: \"(a)(b)\"}", attributes: "  - {name: page, type: text}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, split: \" \"}", attributes: "  - {name: page, type: text}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, negate: true}", attributes: "  - {name: page, type: text}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, repeated: all}", attributes: "  - {name: page, type: integer}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: page, field: url, repeated: sometimes}", attributes: "  - {name: page, type: text}") }
        #expect(throws: ModelError.self) { try Self.model("  - {attribute: at, field: t, format: epoch-ms, zone: \"+02:00\"}", attributes: "  - {name: at, type: datetime}") }
    }

    @Test func repeatedValuesAreNeverCutSilently() throws {
        let attributes = "  - {name: tags, type: text}"
        let lines = [#"{"id":"a","tags":["x","y"]}"#, #"{"id":"b","tags":"z"}"#, #"{"id":"c","tags":["w"]}"#]
        let rejected = try Self.map(lines, try Self.model("  - {attribute: tags, field: tags}", attributes: attributes))
        #expect(rejected.records.map { $0["code"] } == [.text("b"), .text("c")])
        #expect(rejected.rejects.first?.reason.contains("field 'tags' has 2 values") == true, "\(rejected.rejects)")
        let all = try Self.map(lines, try Self.model("  - {attribute: tags, field: tags, repeated: all}", attributes: attributes))
        #expect(all.records.map { $0["tags"] } == [.text(#"["x","y"]"#), .text(#"["z"]"#), .text(#"["w"]"#)])
        let joined = try Self.map(lines, try Self.model("  - {attribute: tags, field: tags, repeated: join, separator: \";\"}", attributes: attributes))
        #expect(joined.records.map { $0["tags"] } == [.text("x;y"), .text("z"), .text("w")])
        let last = try Self.map(lines, try Self.model("  - {attribute: tags, field: tags, repeated: last}", attributes: attributes))
        #expect(last.records.map { $0["tags"] } == [.text("y"), .text("z"), .text("w")])
    }

    @Test func absentFromEveryRecordIsNotSuppliedButAbsentFromSomeIsNull() throws {
        let model = try Self.model("""
              - {attribute: a, field: a}
              - {attribute: b, field: /deep/b}
              - {attribute: c, field: c}
            """, attributes: """
              - {name: a, type: integer}
              - {name: b, type: integer}
              - {name: c, type: integer}
            """)
        // Five records in batches of two: the decision waits for the held batches.
        let lines = [#"{"id":"1","a":1}"#, #"{"id":"2","c":null}"#, #"{"id":"3","a":3}"#, #"{"id":"4"}"#, #"{"id":"5","a":5}"#]
        let (records, rejects, warnings) = try Self.map(lines, model)
        #expect(rejects.isEmpty)
        #expect(records.count == 5)
        #expect(records.allSatisfy { $0["b"] == nil }, "b is not supplied: \(records)")
        #expect(records[1]["a"] == .null)
        #expect(records[1]["c"] == .null)
        #expect(records[0]["c"] == .null)
        // b is absent from every record; a and c from some, each counted (stored as null there).
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.contains("field '/deep/b' is absent from every record: attribute b not supplied") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("field 'a' is absent from 2 of 5 records: attribute a stored as null there") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("field 'c' is absent from 4 of 5 records") }, "\(warnings)")
    }

    @Test func aFieldFirstMetAfterTheWindowIsStoredFromAFile() throws {
        let model = try Self.model("  - {attribute: a, field: a}", attributes: "  - {name: a, type: integer}")
        let lines = [#"{"id":"1"}"#, #"{"id":"2"}"#, #"{"id":"3"}"#, #"{"id":"4","a":4}"#, #"{"id":"5","a":5}"#]
        let (records, rejects, warnings) = try Self.map(lines, model, window: 2)
        #expect(rejects.isEmpty && records.count == 5)
        #expect(records.map { $0["a"] } == [.null, .null, .null, .integer(4), .integer(5)], "\(records)")
        #expect(warnings.count == 1 && warnings[0].contains("field 'a' is absent from 3 of 5 records"), "\(warnings)")
    }

    @Test func aFieldAbsentFromAWholeFileLongerThanTheWindowIsNotSupplied() throws {
        let model = try Self.model("  - {attribute: a, field: a}", attributes: "  - {name: a, type: integer}")
        let lines = (1...7).map { #"{"id":"\#($0)"}"# }
        let (records, _, warnings) = try Self.map(lines, model, window: 2)
        #expect(records.count == 7 && records.allSatisfy { $0["a"] == nil }, "\(records)")
        #expect(warnings.count == 1 && warnings[0].contains("field 'a' is absent from every record"), "\(warnings)")
    }

    /// A pipe cannot be read twice: a field first met after the window is decided as absent there.
    @Test func aFieldFirstMetAfterTheWindowOfAPipeIsNotSuppliedAndCounted() throws {
        let model = try Self.model("  - {attribute: a, field: a}", attributes: "  - {name: a, type: integer}")
        let lines = [#"{"id":"1"}"#, #"{"id":"2"}"#, #"{"id":"3"}"#, #"{"id":"4","a":4}"#, #"{"id":"5","a":5}"#]
        let (records, rejects, warnings) = try Self.map(lines, model, window: 2, throughPipe: true)
        #expect(rejects.isEmpty && records.count == 5)
        #expect(records.allSatisfy { $0["a"] == nil }, "never stored as null, nor half-supplied: \(records)")
        #expect(warnings.count == 1 && warnings[0].hasSuffix("field 'a' first appears after 2 records without it, in 2 record(s): attribute a not supplied by this feed, stored values kept"), "\(warnings)")
    }
}
