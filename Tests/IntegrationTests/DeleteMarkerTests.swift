import Foundation
import ImporterTestSupport
import Testing

/// Delete markers (issue 46.3): a record the feed marks deleted (`delete-marker:`) deletes the
/// stored record of its key, with its tombstone, in any run; a marked record the store does not
/// hold deletes nothing and is counted; one whose key cannot be read is a reject.
@Suite struct DeleteMarkerTests {
    static func model(format: String, marker: String) -> String {
        """
        entities:
        - name: Ticket
          key: [ticket_id]
          tombstone: [ticket_id, title]
          attributes:
          - {name: ticket_id, type: text, required: true}
          - {name: title, type: text}
          - {name: points, type: integer}
        feeds:
        - name: tickets
          entity: Ticket
          format: \(format)
          delete-marker: \(marker)
          fields:
          - {attribute: ticket_id, field: id}
          - {attribute: title, field: title}
          - {attribute: points, field: points}
        """
    }

    static func rows(_ store: String) throws -> [Substring] {
        try importer(["query", "--store", store, "--format", "csv", "SELECT ticket_id, title, points FROM ticket ORDER BY ticket_id"])
            .stdout.split(separator: "\r\n").dropFirst().map { $0 }
    }

    @Test(arguments: ["sqlite", "postgres"]) func aJSONRecordMarkedDeletedIsADelete(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let model = try directory.write("m.yaml", Self.model(format: "json", marker: "{field: deleted, values: [true]}"))
        let first = try directory.write("1.json", #"[{"id": "T1", "title": "a", "points": 1}, {"id": "T2", "title": "b", "points": 2}, {"id": "T3", "title": "c", "points": 3}]"#)
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let second = try directory.write("2.json", #"""
            [{"id": "T1", "title": "a", "points": 5}, {"id": "T2", "deleted": true}, {"id": "T3", "title": "c", "points": 3, "deleted": false},
             {"id": "T9", "deleted": true}, {"id": null, "deleted": true}]
            """#)
        let run = try importer(["run", "--store", store, "--model", model, "--max-rejects", "1", "--max-delete", "100%", "--format", "json", second])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ChildEntityTests.counts(run, "Ticket") == ["inserted": 0, "updated": 1, "deleted": 1, "unchanged": 1, "rejected": 1, "duplicates": 0, "rekeyed": 0], "\(run.stdout)")
        #expect(run.stdout.contains("1 Ticket record(s) marked deleted are not in the store: nothing to delete"), "T9: \(run.stdout)")
        #expect(run.stdout.contains("marked deleted (deleted), but its key cannot be read"), "\(run.stdout)")
        #expect(try Self.rows(store) == [#""T1","a",5"#, #""T3","c",3"#])
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(history.contains(#""type":"delete""#) && history.contains(#""title":"b""#), "the tombstone: \(history)")
        let undo = try importer(["undo", "--store", store, "--last"])
        let restored = try Self.rows(store)
        #expect(undo.status == 0 && restored.contains(#""T2","b",2"#), "\(undo.stderr)\(restored)")
    }

    /// A CSV export's `deleted_at` column: any value marks the record deleted; a mass of them is
    /// guarded as any delete is.
    @Test func aCSVDeletedAtColumnMarksRecordsAndIsGuarded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("t.sqlite")
        let model = try directory.write("m.yaml", Self.model(format: "csv", marker: "{field: deleted_at}"))
        let first = try directory.write("1.csv", "id,title,points,deleted_at\nT1,a,1,\nT2,b,2,\nT3,c,3,\nT4,d,4,\n")
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let one = try directory.write("2.csv", "id,title,points,deleted_at\nT1,a,1,\nT2,b,2,2024-06-01T10:00:00Z\n")
        let run = try importer(["run", "--store", store, "--model", model, "--format", "json", one])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Ticket")["deleted"] == 1, "\(run.stdout)\(run.stderr)")
        #expect(try Self.rows(store) == [#""T1","a",1"#, #""T3","c",3"#, #""T4","d",4"#])
        let most = try directory.write("3.csv", "id,title,points,deleted_at\nT1,a,1,yes\nT3,c,3,yes\nT4,d,4,yes\n")
        let refused = try importer(["run", "--store", store, "--model", model, most])
        #expect(refused.status == 65 && refused.stderr.contains("would delete 3 of the 3 stored Ticket records"), "\(refused.stderr)")
        #expect(try Self.rows(store).count == 3, "nothing written")
        // A marker field no record holds is said, not taken for "nothing was deleted" in silence.
        let renamed = try directory.write("4.csv", "id,title,points,removed_at\nT1,a,1,\n")
        let warned = try importer(["run", "--store", store, "--model", model, renamed])
        #expect(warned.status == 0 && warned.stderr.contains("no record has the delete-marker field 'deleted_at' (renamed upstream?)"), "\(warned.stderr)")
    }

    /// More marks than a run keeps in memory (10,000: the rest are spilled to a temporary file
    /// and read back in chunks): every one deletes its record, in the order read; the marks of
    /// records the store does not hold are counted exactly.
    @Test(arguments: ["sqlite", "postgres"]) func marksBeyondMemoryAreAllApplied(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let model = try directory.write("m.yaml", Self.model(format: "ndjson", marker: "{field: deleted_at}"))
        let first = try directory.write("1.ndjson", (0..<25_000).map { #"{"id": "T\#($0)", "title": "t", "points": \#($0)}"# }.joined(separator: "\n") + "\n")
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        // Every record whose number is not a multiple of 5 is marked deleted, and 1,000 unknown ones.
        let marks = (0..<25_000).map { $0 % 5 == 0 ? #"{"id": "T\#($0)", "title": "t", "points": \#($0)}"# : #"{"id": "T\#($0)", "deleted_at": "2026-11-29"}"# }
            + (0..<1_000).map { #"{"id": "X\#($0)", "deleted_at": "2026-11-29"}"# }
        let second = try directory.write("2.ndjson", marks.joined(separator: "\n") + "\n")
        let run = try importer(["run", "--store", store, "--model", model, "--max-delete", "100%", "--format", "json", second])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Ticket")["deleted"] == 20_000, "\(run.stdout.prefix(2_000))\(run.stderr)")
        #expect(run.stdout.contains("1000 Ticket record(s) marked deleted are not in the store"), "\(run.stdout.prefix(2_000))")
        let left = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM ticket WHERE points % 5 = 0"]).stdout
        let all = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM ticket"]).stdout
        #expect(left == "5000\n" && all == "5000\n", "\(left) \(all)")
    }

    /// Consumers see a window's deletes and a marker's deletes like any other (46.5): delivered
    /// as deletes with their tombstones, the records outside the window untouched and unsent.
    @Test(arguments: ["sqlite", "postgres"]) func consumersReceiveWindowAndMarkerDeletes(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let model = try directory.write("m.yaml", Self.model(format: "ndjson", marker: "{field: deleted, values: [true]}")
            .replacingOccurrences(of: "  delete-marker:", with: "  sync: {scope: points}\n  delete-marker:"))
        let first = try directory.write("1.ndjson", (1...5).map { #"{"id": "T\#($0)", "title": "t\#($0)", "points": \#($0)}"# }.joined(separator: "\n") + "\n")
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        #expect(try importer(["consumers", "add", "mailer", "--entity", "Ticket", "--from", "now", "--store", store]).status == 0)
        // Points 3 and up: T3 kept, T4 marked deleted, T5 gone from the window; T1 and T2 outside it.
        let second = try directory.write("2.ndjson", #"{"id": "T3", "title": "t3", "points": 3}"# + "\n" + #"{"id": "T4", "deleted": true}"# + "\n")
        let run = try importer(["run", "--store", store, "--model", model, "--sync", "--window-from", "3", "--max-delete", "100%", "--format", "json", second])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Ticket")["deleted"] == 2, "\(run.stdout)\(run.stderr)")
        let received = directory.path("received.json")
        let delivered = try importer(["deliver", "--consumer", "mailer", "--exec", "cat >> '\(received)'", "--store", store])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let body = (try? String(contentsOfFile: received, encoding: .utf8)) ?? ""
        let changes = body.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        #expect(changes.map { "\($0["type"] ?? "") \(($0["key"] as? [String: Any])?["ticket_id"] ?? "")" }.sorted() == ["delete T4", "delete T5"], "\(body)")
        #expect(body.contains(#""title":"t4""#) && body.contains(#""title":"t5""#), "the tombstones: \(body)")
        #expect(try Self.rows(store) == [#""T1","t1",1"#, #""T2","t2",2"#, #""T3","t3",3"#])
    }
}
