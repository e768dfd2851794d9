import Foundation
import ImporterTestSupport
import Testing

/// A record is one tree with its children: a bad child, at any depth, rejects its record, which
/// writes nothing of its tree and keeps what the store holds of it, `--sync` included. The run
/// meets the bad child after its record and reads the feed again without it, on both backends.
@Suite struct ChildRejectTests {
    static let model = sample("models/orders-lines-parts.yaml")

    static func rows(_ store: String, _ sql: String) throws -> [Substring] {
        try importer(["query", "--store", store, "--format", "csv", sql]).stdout.split(separator: "\r\n").dropFirst().map { $0 }
    }

    @Test(arguments: ["sqlite", "postgres"]) func aBadGrandchildRejectsItsRecordsWholeTree(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let first = try directory.write("1.json", #"""
            [{"id": "o1", "lines": [{"sku": "a", "qty": 1, "parts": [{"part": "x", "n": 2}]}]},
             {"id": "o2", "lines": [{"sku": "a", "qty": 5, "parts": [{"part": "w", "n": 1}]}, {"sku": "b", "qty": 1, "parts": []}]},
             {"id": "o3", "lines": [{"sku": "c", "qty": 1, "parts": []}]}]
            """#)
        #expect(try importer(["run", "--store", store, "--model", Self.model, first]).status == 0)
        // o2 drops line b, changes line a and one of its parts has a bad count; o1 changes; o3 is gone.
        let second = try directory.write("2.json", #"""
            [{"id": "o1", "lines": [{"sku": "a", "qty": 2, "parts": [{"part": "x", "n": 3}]}]},
             {"id": "o2", "lines": [{"sku": "a", "qty": 6, "parts": [{"part": "w", "n": 2}, {"part": "v", "n": "two"}]}]}]
            """#)
        let before = try Self.rows(store, "SELECT order_id, sku, qty FROM line ORDER BY 1, 2")
        let refused = try importer(["run", "--store", store, "--model", Self.model, "--sync", "--max-delete", "100%", second])
        #expect(refused.status == 65, "no rejects allowed: \(refused.stderr)")
        #expect(try Self.rows(store, "SELECT order_id, sku, qty FROM line ORDER BY 1, 2") == before)
        let run = try importer(["run", "--store", store, "--model", Self.model, "--sync", "--max-delete", "100%", "--max-updated", "100%",
                                "--max-rejects", "5", "--format", "json", second])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ChildEntityTests.counts(run, "Order")["deleted"] == 1 && ChildEntityTests.counts(run, "Order")["rejected"] == 1, "o3 deleted, o2 rejected: \(run.stdout)")
        #expect(ChildEntityTests.counts(run, "Part")["rejected"] == 1, "\(run.stdout)")
        #expect(run.stdout.contains("/1/lines/0/parts/1/n"), "the bad part located: \(run.stdout)")
        #expect(run.stdout.contains("rejected with its children: its Part.n was rejected"), "\(run.stdout)")
        // o2's tree is as it was; o1's changed; o3's went with it (cascade).
        #expect(try Self.rows(store, "SELECT order_id, sku, qty FROM line ORDER BY 1, 2") == [#""o1","a",2"#, #""o2","a",5"#, #""o2","b",1"#])
        #expect(try Self.rows(store, "SELECT order_id, sku, part, n FROM part ORDER BY 1, 2, 3") == [#""o1","a","x",3"#, #""o2","a","w",1"#])
        #expect(try Self.rows(store, "SELECT order_id FROM \"order\" ORDER BY 1") == [#""o1""#, #""o2""#])
        // Fixed, the same snapshot writes o2's tree.
        let fixed = try directory.write("3.json", try String(contentsOfFile: second, encoding: .utf8).replacingOccurrences(of: #""two""#, with: "2"))
        let third = try importer(["run", "--store", store, "--model", Self.model, "--sync", "--max-delete", "100%", "--max-updated", "100%", "--format", "json", fixed])
        #expect(ChildEntityTests.counts(third, "Line")["deleted"] == 1 && ChildEntityTests.counts(third, "Part")["inserted"] == 1, "\(third.stdout)\(third.stderr)")
    }
}
