import ImporterTestSupport
import Foundation
import Testing

/// `importer export --as-of`: the store read back at any point history still covers.
@Suite struct ExportTests {
    @Test func everyPointReadsBackAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let steps: [[String]] = [
            ["run", sample("fireball-2024.json")],
            ["run", "--sync", sample("fireball-2026.json")],
            ["run", sample("fireball-vel-comp.json")],
            ["undo", "--last"],
            ["run", sample("fireball-2024.json")],
        ]
        var snapshots: [String] = []
        for step in steps {
            try #require(try importer(step + ["--store", store]).status == 0)
            let now = try importer(["export", "--store", store])
            try #require(now.status == 0, "\(now.stderr)")
            snapshots.append(now.stdout)
        }
        let history = try #require((try importer(["history", "--store", store, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]])
        let tokens = history.compactMap { $0["token"] as? String }
        #expect(tokens.count == steps.count)
        for (token, snapshot) in zip(tokens, snapshots) {
            let then = try importer(["export", "--store", store, "--as-of", token])
            #expect(then.status == 0, "\(then.stderr)")
            #expect(then.stdout == snapshot, "as of \(token)")
        }
        let first = try #require(try JSONSerialization.jsonObject(with: Data(snapshots[0].utf8)) as? [[String: Any]])
        #expect(first.count == 10)
        #expect(first.map { $0["date"] as? String ?? "" } == first.map { $0["date"] as? String ?? "" }.sorted())
    }

    @Test func formatsAndAPurgedPoint() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let csv = try importer(["export", "--store", store, "--format", "csv"])
        let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first == #""date","energy","impact_energy","latitude","longitude","altitude","velocity","vx","vy","vz""#)
        #expect(rows.count == 11)
        let ndjson = try importer(["export", "--store", store, "--format", "ndjson", "--output", directory.path("out.ndjson")])
        #expect(ndjson.status == 0)
        #expect(try String(contentsOfFile: directory.path("out.ndjson"), encoding: .utf8).split(separator: "\n").count == 10)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        try #require(try importer(["history", "purge", "--store", store, "--before", "2999-01-01", "--force"]).status == 0)
        let expired = try importer(["export", "--store", store, "--as-of", "2000-01-01"])
        #expect(expired.status == 3)
        #expect(expired.stderr.contains("cannot be read as of transaction 0"))
    }
}
