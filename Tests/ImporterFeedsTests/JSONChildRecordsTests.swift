import Foundation
@testable import ImporterFeeds
import ImporterModel
import ImporterTestSupport
import Testing

/// The JSON reader in child mode: each parent read whole, its children handed out with the
/// parent's fields and their place; a parent without its array stands for itself only.
@Suite struct JSONChildRecordsTests {
    /// Every record the reader hands out, as `field=text` lines (`parent-only` marked).
    static func read(_ document: String, records: String? = "/items", fields: [String]) throws -> [String] {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("feed.json", document)
        let reader = try JSONRecordsReader(source: try ByteSource(path: path), records: records, lines: false, children: "/children")
        _ = try reader.open(requesting: fields)
        var record = RawRecord(slotCount: fields.count)
        var lines: [String] = []
        while try reader.next(into: &record) {
            let values = fields.indices.map { slot in
                "\(fields[slot])=\(record.slots[slot].kind == .absent ? "-" : record.text(of: slot))"
            }
            lines.append((record.isParentOnly ? "parent-only " : "") + values.joined(separator: " "))
        }
        return lines
    }

    @Test func childrenCarryTheirParentsFieldsAndPlace() throws {
        let document = #"""
            {"items": [
              {"id": "a", "children": [{"k": 1, "v": "x"}, {"v": "y", "k": 2}]},
              {"children": [{"k": 3}], "id": "b"},
              {"id": "c", "children": []},
              {"id": "d"},
              {"id": "e", "children": null}
            ]}
            """#
        let lines = try Self.read(document, fields: ["../id", "k", "v", ChildRecords.positionField])
        #expect(lines == [
            "../id=a k=1 v=x #position=0",
            "../id=a k=2 v=y #position=1",
            "../id=b k=3 v=- #position=0",
            "parent-only ../id=d k=- v=- #position=-",
            "parent-only ../id=e k=- v=- #position=-",
        ])
    }

    /// A parent larger than the reader's buffer is read again from its start after a refill,
    /// without duplicating or losing a child.
    @Test func aParentLargerThanTheBufferIsReadWhole() throws {
        let children = (0..<6_000).map { #"{"k": \#($0), "v": "\#(String(repeating: "z", count: 20))"}"# }.joined(separator: ",")
        let document = #"{"items": [{"id": "big", "children": [\#(children)]}, {"id": "next", "children": [{"k": -1}]}]}"#
        let lines = try Self.read(document, fields: ["../id", "k"])
        #expect(lines.count == 6_001)
        #expect(lines.first == "../id=big k=0" && lines[5_999] == "../id=big k=5999" && lines.last == "../id=next k=-1")
    }

    @Test func aChildThatIsNotAnObjectIsAnError() throws {
        #expect(throws: FeedError.self) { try Self.read(#"{"items": [{"id": "a", "children": [1]}]}"#, fields: ["../id", "k"]) }
        #expect(throws: FeedError.self) { try Self.read(#"{"items": [{"id": "a", "children": []}]}"#, fields: ["../../x", "k"]) }
    }
}
