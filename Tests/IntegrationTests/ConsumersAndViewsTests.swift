import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

@Suite struct ConsumersAndViewsTests {
    @Test func runMaintainsTheBuiltInViews() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let second = try importer(["run", "--store", store, "--sync", "--format", "json", sample("fireball-2026.json")])
        let views = try #require((second.json as? [String: Any])?["views"] as? [String: [String: Any]])
        #expect(views.keys.sorted() == ["fireball_by_region", "fireball_by_year"])
        #expect(views["fireball_by_year"]?["through_transaction"] as? Int == 2)

        let shown = try importer(["views", "show", "fireball_by_year", "--store", store, "--format", "json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let rows = try #require(shown.json as? [[String: Any]])
        #expect(rows.map { $0["year"] as? Int } == [2019, 2022, 2023, 2024, 2026])
        #expect(rows.map { $0["count"] as? Int } == [1, 1, 3, 4, 2])
        #expect(rows.map { $0["located"] as? Int } == [1, 1, 3, 3, 2])
        #expect(rows.map { $0["impact_energy_max"] as? Double } == [0.17, 0.87, 14, 0.36, 0.1])
        let sums = rows.compactMap { $0["energy_sum"] as? Double }
        for (sum, expected) in zip(sums, [5.0, 31.5, 766.7, 22.4, 5.7]) { #expect(abs(sum - expected) < 1e-9) }

        let regions = try #require(try importer(["views", "show", "fireball_by_region", "--store", store, "--format", "json"]).json as? [[String: Any]])
        #expect(regions.map { $0["region"] as? String } == ["NE", "NW", "SE", "SW", "unknown"])
        #expect(regions.map { $0["count"] as? Int } == [3, 3, 1, 3, 1])
        #expect(regions.first { $0["region"] as? String == "SE" }?["impact_energy_max"] as? Double == 14)

        let verify = try importer(["views", "verify", "--store", store])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("match"))
        let list = try importer(["views", "list", "--store", store])
        #expect(list.stdout.contains("fireball_by_year: Fireball grouped by year; count = count(*), energy_sum = sum(energy)"))
    }

    @Test func verifyFailsWhenAViewDiffersFromItsRecomputation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        // Views are derived data, not tracked: another program can damage one.
        try SQLiteConnection(path: store).execute("UPDATE fireball_by_year SET count = count + 1 WHERE year = 2023")
        let verify = try importer(["views", "verify", "--store", store])
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("fireball_by_year group (2023): count is 4 incrementally, 3 recomputed"))
        #expect(try importer(["views", "rebuild", "fireball_by_year", "--store", store]).status == 0)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }

    @Test func consumersReadTheirFilteredChangesOnceAndAcknowledge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, "--author", "nightly", sample("fireball-2024.json")])
        #expect(try importer(["consumers", "add", "energy", "--store", store, "--attribute", "energy", "--from", "beginning"]).status == 0)
        #expect(try importer(["consumers", "add", "others", "--store", store, "--exclude-author", "nightly", "--from", "beginning"]).status == 0)
        #expect(try importer(["consumers", "add", "energy", "--store", store]).status == 64)
        #expect(try importer(["consumers", "add", "bad name", "--store", store]).status == 64)
        try importer(["run", "--store", store, "--author", "nightly", "--sync", sample("fireball-2026.json")])
        try importer(["run", "--store", store, "--author", "manual", sample("fireball-vel-comp.json")])

        let energy = try importer(["history", "--store", store, "--consumer", "energy", "--format", "ndjson", "--ack"])
        #expect(energy.status == 0, "\(energy.stderr)")
        let lines = energy.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        // Transaction 1: 10 inserts; 2: 3 inserts, 2 deletes, 1 energy update and 1 re-key (which counts like the insert
        // and delete it replaces; the altitude-only update is filtered out); 3: the vx/vy/vz updates do not touch energy.
        #expect(lines.count == 17)
        #expect(lines.filter { $0["type"] as? String == "update" }.compactMap { ($0["key"] as? [String: String])?["date"] }.sorted() == ["2023-04-11 14:52:10", "2024-07-21 08:12:05"])
        #expect(Set(lines.compactMap { $0["transaction"] as? Int }) == [1, 2])
        let again = try importer(["history", "--store", store, "--consumer", "energy", "--format", "ndjson"])
        #expect(again.stdout.isEmpty)

        let others = try importer(["history", "--store", store, "--consumer", "others", "--format", "json"])
        let transactions = try #require((others.json as? [String: Any])?["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["author"] as? String } == ["manual"])
        let list = try importer(["consumers", "list", "--store", store, "--format", "json"])
        let consumers = try #require(list.json as? [[String: Any]])
        let othersEntry = try #require(consumers.first { $0["name"] as? String == "others" })
        #expect((othersEntry["lag"] as? [String: Int]) == ["transactions": 1, "changes": 2])
        #expect(consumers.first { $0["name"] as? String == "energy" }?["transaction"] as? Int == 3)
        #expect(try importer(["consumers", "remove", "others", "--store", store]).status == 0)
        #expect(try importer(["consumers", "remove", "others", "--store", store]).status == 64)
    }

    /// A consumer's report counts only the entities its filter selects, in the totals too.
    @Test func aConsumersReportTotalsOnlyItsEntities() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = directory.path("shelf.yaml")
        try """
            entities:
            - name: Note
              table: note
              key: [number]
              attributes:
              - {name: number, type: integer, required: true}
              - {name: body, type: text}
            - name: Tag
              table: tag
              key: [name]
              attributes:
              - {name: name, type: text, required: true}
            feeds:
            - name: notes
              entity: Note
              format: ndjson
              fields:
              - {attribute: number, field: number}
              - {attribute: body, field: body}
            - name: tags
              entity: Tag
              format: csv
              fields:
              - {attribute: name, field: name}
            """.write(toFile: model, atomically: true, encoding: .utf8)
        try "{\"number\": 1, \"body\": \"a\"}\n{\"number\": 2, \"body\": \"b\"}\n".write(toFile: directory.path("notes.ndjson"), atomically: true, encoding: .utf8)
        try "name\nred\ngreen\nblue\n".write(toFile: directory.path("tags.csv"), atomically: true, encoding: .utf8)
        #expect(try importer(["consumers", "add", "notes", "--store", store, "--entity", "Note"]).status == 0)
        let run = try importer(["run", "--store", store, "--model", model, directory.path("notes.ndjson"), directory.path("tags.csv")])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try importer(["report", "--store", store, "--consumer", "notes", "--report", "markdown"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("| Note | 2 | 0 | 0 | 0 | 0 | 0 |"), "\(report.stdout)")
        #expect(report.stdout.contains("| **total** | 2 | 0 | 0 | 0 | 0 | 0 |"), "\(report.stdout)")
        #expect(!report.stdout.contains("Tag"))
    }

    @Test func purgeKeepsWhatConsumersNeedAndForcedPurgeExpiresTokens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        try importer(["consumers", "add", "mailer", "--store", store, "--from", "beginning"])
        try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")])

        // mailer has consumed nothing: nothing may go.
        let nothing = try importer(["history", "purge", "--store", store, "--format", "json"])
        #expect(nothing.status == 0, "\(nothing.stderr)")
        #expect((nothing.json as? [String: Any])?["transactions"] as? Int == 0)
        #expect(try importer(["history", "--store", store, "--consumer", "mailer", "--ack", "--limit", "1"]).status == 0)
        let one = try importer(["history", "purge", "--store", store, "--format", "json"])
        #expect((one.json as? [String: Any])?["transactions"] as? Int == 1)
        #expect((one.json as? [String: Any])?["purged_through"] as? Int == 1)
        // The consumer still reads what it needs.
        let pending = try importer(["history", "--store", store, "--consumer", "mailer", "--format", "json"])
        #expect(pending.status == 0)
        #expect(((pending.json as? [String: Any])?["transactions"] as? [[String: Any]])?.map { $0["number"] as? Int } == [2])

        try importer(["run", "--store", store, "--no-replay", sample("fireball-vel-comp.json")])
        let head = try #require(((try importer(["history", "--store", store, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]])?.last?["token"] as? String)
        let refused = try importer(["history", "purge", "--store", store, "--before", head])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("would expire consumer(s) fireball_by_region, fireball_by_year, mailer"))
        let forced = try importer(["history", "purge", "--store", store, "--before", head, "--force", "--format", "json"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect((forced.json as? [String: Any])?["expired_consumers"] as? [String] == ["fireball_by_region", "fireball_by_year", "mailer"])

        let expired = try importer(["history", "--store", store, "--consumer", "mailer"])
        #expect(expired.status == 3)
        #expect(expired.stderr.contains("expired token"))
        #expect(expired.stderr.contains("importer consumers reset mailer"))
        let replay = try importer(["replay", "--store", store])
        #expect(replay.status == 3)
        #expect(replay.stderr.contains("importer views rebuild"))
        #expect(try importer(["consumers", "list", "--store", store]).stdout.contains("mailer [external] token"))

        #expect(try importer(["replay", "--store", store, "--rebuild-expired"]).status == 0)
        #expect(try importer(["consumers", "reset", "mailer", "--store", store, "--to", "beginning"]).status == 0)
        let recovered = try importer(["history", "--store", store, "--consumer", "mailer", "--format", "json"])
        #expect(recovered.status == 0)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        // A store without consumers needs an explicit bound.
        let bare = directory.path("bare.sqlite")
        try importer(["run", "--store", bare, "--no-replay", sample("fireball-2024.json")])
        #expect(try importer(["history", "purge", "--store", bare]).status == 64)
        #expect(try importer(["history", "purge", "--store", bare, "--keep", "0"]).status == 0)
    }

    @Test func watchSeesAnotherProcessWriteWithinSeconds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        try importer(["consumers", "add", "tail", "--store", store])
        let outputPath = directory.path("watch.ndjson")
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: importerBinary)
        watch.arguments = ["watch", "--store", store, "--consumer", "tail", "--interval", "0.2"]
        watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { watch.terminate() } }
        Thread.sleep(forTimeInterval: 0.5)

        let written = Date()
        #expect(try importer(["run", "--store", store, "--no-replay", "--sync", sample("fireball-2026.json")]).status == 0)
        var lines: [String] = []
        while Date().timeIntervalSince(written) < 10 {
            lines = (try String(contentsOfFile: outputPath, encoding: .utf8)).split(separator: "\n").map(String.init)
            if lines.count >= 8 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(lines.count == 8)
        #expect(Date().timeIntervalSince(written) < 5)
        let first = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(first["consumer"] as? String == "tail")
        #expect(first["transaction"] as? Int == 2)

        watch.terminate()  // SIGTERM
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
        // Tokens were saved: views replayed, the consumer acknowledged.
        let consumers = try #require(try importer(["consumers", "list", "--store", store, "--format", "json"]).json as? [[String: Any]])
        #expect(consumers.allSatisfy { $0["transaction"] as? Int == 2 })
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }
}
