import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Key drift moves a parent with its children (issue 44.3): a re-timed event is one update of the
/// event, and each of its observations still listed is one update of that observation (its id and
/// history kept, its key re-keyed); one the new list no longer holds is deleted, a new one inserted.
@Suite struct ChildDriftTests {
    static let model = """
        entities:
        - name: Event
          key: [time]
          drift: {attribute: time, tolerance: 2s}
          attributes:
          - {name: time, type: datetime, required: true}
          - {name: energy, type: real}
          relationships:
          - {name: observations, entity: Observation, records: /obs, key: [station]}
        - name: Observation
          key: [time, station]
          attributes:
          - {name: time, type: datetime, required: true}
          - {name: station, type: text, required: true}
          - {name: v, type: integer}
        feeds:
        - name: events
          entity: Event
          format: json
          fields:
          - {attribute: time, field: time}
          - {attribute: energy, field: energy}
          children:
          - relationship: observations
            fields:
            - {attribute: station, field: station}
            - {attribute: v, field: v}
        """
    static let day1 = #"[{"time": "2024-01-01 00:00:00", "energy": 1.5, "obs": [{"station": "a", "v": 1}, {"station": "b", "v": 2}, {"station": "e", "v": 9}]}, {"time": "2024-02-01 00:00:00", "energy": 2, "obs": [{"station": "c", "v": 3}]}]"#
    // The first event re-timed by a second: a unchanged, b revised, e gone, d new.
    static let day2 = #"[{"time": "2024-01-01 00:00:01", "energy": 1.5, "obs": [{"station": "d", "v": 4}, {"station": "b", "v": 5}, {"station": "a", "v": 1}]}, {"time": "2024-02-01 00:00:00", "energy": 2, "obs": [{"station": "c", "v": 3}]}]"#

    @Test func aReKeyedParentTakesItsChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.rekey(directory: directory, store: directory.path("events.sqlite"))
    }

    @Test func aReKeyedParentTakesItsChildrenOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.rekey(directory: directory, store: try PostgresTestCluster.start().newStoreURL())
    }

    static func rekey(directory: TemporaryDirectory, store: String) throws {
        let model = try directory.write("events.yaml", Self.model)
        #expect(try importer(["model", "check", model]).status == 0)
        func rows() throws -> [Substring] {
            try importer(["query", "--store", store, "--format", "csv", "SELECT id, time, station, v FROM observation ORDER BY station"])
                .stdout.split(separator: "\r\n").dropFirst().map { $0 }
        }
        #expect(try importer(["run", "--store", store, "--model", model, try directory.write("1.json", day1)]).status == 0)
        let before = try rows()
        let ids = Dictionary(uniqueKeysWithValues: before.map { row in (row.split(separator: ",")[2], row.split(separator: ",")[0]) })
        let sync = try importer(["run", "--store", store, "--model", model, "--sync", "--max-delete", "100%", "--format", "json", try directory.write("2.json", day2)])
        #expect(sync.status == 0, "\(sync.stderr)")
        let entities = (sync.json as? [String: Any])?["entities"] as? [String: [String: Int]] ?? [:]
        #expect(entities["Event"] == ["inserted": 0, "updated": 1, "deleted": 0, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 1], "\(sync.stdout)")
        #expect(entities["Observation"] == ["inserted": 1, "updated": 2, "deleted": 1, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 2], "\(sync.stdout)")
        let after = try rows()
        #expect(after.map { $0.split(separator: ",").dropFirst().joined(separator: ",") } == [
            #""2024-01-01 00:00:01","a",1"#, #""2024-01-01 00:00:01","b",5"#, #""2024-02-01 00:00:00","c",3"#, #""2024-01-01 00:00:01","d",4"#,
        ], "\(after)")
        // a, b and c kept their ids (d is new; e is gone).
        for row in after where ["\"a\"", "\"b\"", "\"c\""].contains(row.split(separator: ",")[2]) {
            #expect(ids[row.split(separator: ",")[2]] == row.split(separator: ",")[0], "\(before) → \(after)")
        }
        let again = try importer(["run", "--store", store, "--model", model, "--sync", try directory.write("2b.json", day2)])
        #expect(again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
        #expect(try importer(["undo", "--store", store, "--last"]).status == 0)
        #expect(try rows() == before, "undoing the re-key restores the children with their ids")
    }
}
