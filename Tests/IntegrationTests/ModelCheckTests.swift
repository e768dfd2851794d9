import ImporterTestSupport
import Foundation
import Testing

/// An attribute named `id` would collide with the record id column of every entity table: it is
/// refused at `model check` (and by `run`, before any store is touched) with a clear message.
@Suite struct ModelCheckTests {
    static let model = """
        entities:
        - name: Thing
          key: [code]
          attributes:
          - {name: code, type: text, required: true}
          - {name: id, type: integer}
        feeds:
        - name: things
          entity: Thing
          format: ndjson
          fields:
          - {attribute: code, field: code}
          - {attribute: id, field: id}
        """

    @Test func anAttributeNamedIdIsRefusedWithTheWayOut() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = directory.path("things.yaml")
        try Self.model.write(toFile: model, atomically: true, encoding: .utf8)
        try #"{"code": "a", "id": 7}"#.write(toFile: directory.path("things.ndjson"), atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", model])
        #expect(check.status == 78)
        #expect(check.stderr.contains("\(model):6:5: entity Thing: attribute name 'id' is reserved: every entity table keeps its record id in a column named id"), "\(check.stderr)")
        #expect(check.stderr.contains("{attribute: source_id, field: id}"))
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--model", model, directory.path("things.ndjson")])
        #expect(run.status == 78)
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
        // Renamed as the message says, the same feed imports.
        try Self.model.replacingOccurrences(of: "{name: id,", with: "{name: source_id,").replacingOccurrences(of: "{attribute: id,", with: "{attribute: source_id,")
            .write(toFile: model, atomically: true, encoding: .utf8)
        let renamed = try importer(["run", "--store", directory.path("s.sqlite"), "--model", model, "--format", "json", directory.path("things.ndjson")])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let change = try #require(((renamed.json as? [String: Any])?["changes"] as? [[String: Any]])?.first)
        #expect((change["values"] as? [String: Any])?["source_id"] as? Int == 7)
    }
}
