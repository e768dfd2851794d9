import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

@Suite struct RunCommandTests {
    @Test func importsTheSampleSnapshotsAndReportsTheExactChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("fireballs.sqlite")
        let first = try importer(["run", "--store", store, "--author", "alice", sample("fireball-2024.json")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Fireball: 10 inserted, 0 updated, 0 deleted, 0 unchanged, 0 duplicates, 0 rejected"))
        #expect(first.stdout.contains("by alice"))
        #expect(first.stderr.isEmpty)

        let second = try importer(["run", "--store", store, "--sync", "--format", "json", sample("fireball-2026.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let report = try #require(second.json as? [String: Any])
        let transaction = try #require(report["transaction"] as? [String: Any])
        #expect(transaction["number"] as? Int == 2)
        #expect(transaction["author"] as? String == "importer-run")
        #expect(transaction["sources"] as? [String] == [sample("fireball-2026.json")])
        let totals = try #require(report["totals"] as? [String: Int])
        #expect(totals == ["inserted": 3, "updated": 3, "deleted": 2, "unchanged": 5, "rejected": 0, "duplicates": 0, "rekeyed": 1])
        #expect((report["entities"] as? [String: [String: Int]])?["Fireball"] == totals)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.count == 8)
        let july = try #require(changes.first { ($0["key"] as? [String: String])?["date"] == "2024-07-21 08:12:05" })
        #expect(july["type"] as? String == "update")
        let changed = try #require(july["changed"] as? [String: [String: Double]])
        #expect(changed == ["energy": ["old": 2.1, "new": 2.4], "impact_energy": ["old": 0.076, "new": 0.085]])
        let deleted = try #require(changes.first { ($0["key"] as? [String: String])?["date"] == "2021-10-01 05:48:11" })
        #expect(deleted["type"] as? String == "delete")
        let tombstone = try #require(deleted["tombstone"] as? [String: Any])
        #expect(tombstone["latitude"] as? Double == -8.7)
        #expect(tombstone["longitude"] as? Double == 173.3)
        #expect(tombstone.keys.sorted() == ["date", "energy", "impact_energy", "latitude", "longitude"])
        let inserted = try #require(changes.first { ($0["key"] as? [String: String])?["date"] == "2026-03-20 10:45:59" })
        #expect((inserted["values"] as? [String: Any])?["velocity"] is NSNull)
        #expect((inserted["values"] as? [String: Any])?["latitude"] as? Double == -52.9)

        // The same feed again: nothing changes, no history transaction.
        let third = try importer(["run", "--store", store, "--format", "json", sample("fireball-2026.json")])
        #expect(third.status == 0)
        let unchanged = try #require(third.json as? [String: Any])
        #expect(unchanged["transaction"] is NSNull)
        #expect((unchanged["totals"] as? [String: Int])?["unchanged"] == 11)
        #expect((unchanged["changes"] as? [Any])?.isEmpty == true)
        let exitCode = try importer(["run", "--store", store, "--exit-code", sample("fireball-2026.json")])
        #expect(exitCode.status == 1)
        #expect(exitCode.stdout.hasPrefix("No changes."))
    }

    @Test func historyListsTheSameChangesAsTheRunReport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let run = try importer(["run", "--store", store, "--sync", "--format", "json", sample("fireball-2026.json")])
        let history = try importer(["history", "--store", store, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let listing = try #require(history.json as? [String: Any])
        let transactions = try #require(listing["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["number"] as? Int } == [1, 2])
        let runChanges = try #require((run.json as? [String: Any])?["changes"] as? NSArray)
        #expect(transactions[1]["changes"] as? NSArray == runChanges)

        let token = try #require(transactions[0]["token"] as? String)
        let after = try importer(["history", "--store", store, "--after", token, "--format", "json"])
        #expect(((after.json as? [String: Any])?["transactions"] as? [[String: Any]])?.map { $0["number"] as? Int } == [2])
        let text = try importer(["history", "--store", store])
        #expect(text.stdout.contains("Transaction 2"))
        #expect(text.stdout.contains("~ Fireball 2024-07-21 08:12:05  energy: 2.1 → 2.4; impact_energy: 0.076 → 0.085"))
        #expect(text.stdout.contains("- Fireball 2021-10-01 05:48:11  (energy=0.9 impact_energy=0.036 latitude=-8.7 longitude=173.3)"))
    }

    @Test(arguments: [
        ("truncated", "truncated.json:4:57"),
        ("count-mismatch", "count-mismatch.json:2:10"),
        ("unknown-version", "unknown-version.json:1:14"),
        ("bad-number", "bad-number.json:5:39"),
        ("short-row", "short-row.json:5:10"),
    ])
    func malformedFeedsFailWithTheirLocationAndChangeNothing(name: String, location: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let before = try sha256(store)
        let result = try importer(["run", "--store", store, "--sync", sample("fireball-2026.json"), sample("malformed/\(name).json")])
        #expect(result.status == 65)
        #expect(result.stderr.contains(location), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try sha256(store) == before)
    }

    @Test func readsStandardInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = try Data(contentsOf: URL(fileURLWithPath: sample("fireball-2024.json")))
        let result = try importer(["run", "--store", directory.path("s.sqlite"), "-"], stdin: feed)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("10 inserted"))
        let broken = try importer(["run", "--store", directory.path("s.sqlite"), "-"], stdin: Data("{\"count\":1,".utf8))
        #expect(broken.status == 65)
        #expect(broken.stderr.contains("<stdin>:1:12"), "\(broken.stderr)")
    }

    @Test func usesTheStoreFromTheEnvironmentOrTheWorkingDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let fromEnvironment = try importer(["run", sample("fireball-2024.json")], environment: ["IMPORTER_STORE": directory.path("env.sqlite")], directory: directory.url)
        #expect(fromEnvironment.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path("env.sqlite")))
        let byDefault = try importer(["run", sample("fireball-2024.json")], environment: ["IMPORTER_AUTHOR": "cron"], directory: directory.url)
        #expect(byDefault.status == 0)
        #expect(byDefault.stdout.contains("by cron"))
        #expect(FileManager.default.fileExists(atPath: directory.path("importer.sqlite")))
    }

    @Test func exitCodesForUsageMissingInputAndUnusableStores() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store]).status == 64)
        #expect(try importer(["run", "--store", store, "--format", "yaml", sample("fireball-2024.json")]).status == 64)
        #expect(try importer(["frobnicate"]).status == 64)
        let missing = try importer(["run", "--store", store, directory.path("nope.json")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("nope.json: cannot read: No such file or directory"))
        #expect(try importer(["history", "--store", directory.path("absent.sqlite")]).status == 66)
        #expect(!FileManager.default.fileExists(atPath: directory.path("absent.sqlite")))
        try Data("not a database, just text that is long enough to look like a header..........................".utf8)
            .write(to: URL(fileURLWithPath: directory.path("text.sqlite")))
        #expect(try importer(["run", "--store", directory.path("text.sqlite"), sample("fireball-2024.json")]).status == 65)
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let other = directory.path("other.sqlite")
        try importer(["run", "--store", other, sample("fireball-2024.json")])
        let token = try #require(((try importer(["history", "--store", other, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]])?.first?["token"] as? String)
        let foreign = try importer(["history", "--store", store, "--after", token])
        #expect(foreign.status == 64)
        #expect(foreign.stderr.contains("belongs to another store"))
    }

    @Test func aLockedStoreFailsWithTheLockedCodeAfterWaiting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let holder = try SQLiteConnection(path: store)
        try holder.execute("BEGIN IMMEDIATE")
        let started = Date()
        let result = try importer(["run", "--store", store, "--wait", "0.5", sample("fireball-2026.json")])
        #expect(result.status == 75)
        #expect(result.stderr.contains("is busy: another process holds its write lock (waited 0.5 s"))
        #expect(Date().timeIntervalSince(started) >= 0.5)
        try holder.execute("ROLLBACK")
        #expect(try importer(["run", "--store", store, sample("fireball-2026.json")]).status == 0)
    }

    @Test func everyCommandHasHelp() throws {
        for command in [[], ["run"], ["history"]] {
            let result = try importer(command + ["--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE"))
        }
    }
}
