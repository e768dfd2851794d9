import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

@Suite struct OperationTests {
    /// Every documented exit code, through the built binary.
    @Test func exitCodesAreTheDocumentedOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        // 0: success with changes; 1: no changes with --exit-code.
        #expect(try importer(["run", "--store", store, "--exit-code", sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["run", "--store", store, "--exit-code", sample("fireball-2024.json")]).status == 1)
        // 64: usage.
        #expect(try importer(["run", "--store", store, "--max-rejects", "-1", sample("fireball-2024.json")]).status == 64)
        #expect(try importer(["run", "--store", store, "--output", "x.bin", "--output", "y.json", sample("fireball-2024.json")]).status == 64)
        // 65: bad input.
        #expect(try importer(["run", "--store", store, sample("malformed/truncated.json")]).status == 65)
        // 66: missing input.
        #expect(try importer(["run", "--store", store, directory.path("absent.json")]).status == 66)
        #expect(try importer(["status", "--store", directory.path("absent.sqlite")]).status == 66)
        // 74: the output cannot be written.
        let unwritable = try importer(["run", "--store", store, "--report", "json", "--output", directory.path("no/such/dir/report.json"), sample("fireball-2026.json")])
        #expect(unwritable.status == 74, "\(unwritable.stderr)")
        // 75: locked, at once with --no-wait.
        let holder = try SQLiteConnection(path: store)
        try holder.execute("BEGIN IMMEDIATE")
        let started = Date()
        let locked = try importer(["run", "--store", store, "--no-wait", sample("fireball-2026.json")])
        #expect(locked.status == 75)
        #expect(Date().timeIntervalSince(started) < 3)
        try holder.execute("ROLLBACK")
        // 3: expired token.
        try importer(["consumers", "add", "late", "--store", store, "--from", "beginning"])
        try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")])
        try importer(["history", "purge", "--store", store, "--keep", "0", "--force"])
        try importer(["history", "purge", "--store", store, "--before", "2999-01-01", "--force"])
        #expect(try importer(["history", "--store", store, "--consumer", "late"]).status == 3)
        // 1: views verify finds a difference; 70: an internal failure (a view's table dropped by hand).
        try SQLiteConnection(path: store).execute("DELETE FROM fireball_by_region")
        #expect(try importer(["views", "verify", "--store", store]).status == 1)
        try SQLiteConnection(path: store).execute("DROP TABLE fireball_by_region")
        let broken = try importer(["views", "rebuild", "fireball_by_region", "--store", store])
        #expect(broken.status == 70)
        #expect(broken.stderr.contains("no such table"))
        // 65: not an importer store.
        try SQLiteConnection(path: directory.path("other.sqlite")).execute("CREATE TABLE t(x)")
        #expect(try importer(["status", "--store", directory.path("other.sqlite")]).status == 65)
    }

    @Test func twoConcurrentRunsSerializeWithoutInterleaving() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let a = directory.path("a.json"), b = directory.path("b.json")
        try Data(CrashTests.largeFeed(count: 40_000, offset: 0).utf8).write(to: URL(fileURLWithPath: a))
        try Data(CrashTests.largeFeed(count: 40_000, offset: 17).utf8).write(to: URL(fileURLWithPath: b))
        func start(_ feed: String, wait: String) throws -> (Process, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: importerBinary)
            process.arguments = ["run", "--store", store, "--wait", wait, "--report", "json", "--output", feed + ".report", feed]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return (process, feed + ".report")
        }
        // Generous wait: both succeed, one after the other.
        let (first, firstReport) = try start(a, wait: "60")
        let (second, secondReport) = try start(b, wait: "60")
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.terminationStatus == 0)
        for report in [firstReport, secondReport] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
            #expect((json["transaction"] as? [String: Any])?["number"] != nil)
        }
        // History: three transactions whose change-id ranges do not overlap.
        let connection = try SQLiteConnection(path: store, create: false)
        let ranges = try connection.rows("SELECT transaction_number, first_change_id, last_change_id FROM importer_transaction_entity ORDER BY transaction_number")
        #expect(ranges.count == 3)
        for (earlier, later) in zip(ranges, ranges.dropFirst()) {
            #expect((earlier[2].doubleValue ?? 0) < (later[1].doubleValue ?? 0))
        }
        let mixed = try connection.scalar("""
            SELECT count(*) FROM importer_change_fireball c JOIN importer_transaction_entity t ON t.entity = 'Fireball'
            AND c.importer_change_id BETWEEN t.first_change_id AND t.last_change_id AND c.importer_transaction_number <> t.transaction_number
            """)
        #expect(mixed == .integer(0))
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try importer(["views", "verify", "--store", store]).status == 0)

        // A short wait: the second one may give up, cleanly, with the locked code.
        let c = directory.path("c.json")
        try Data(CrashTests.largeFeed(count: 60_000, offset: 5).utf8).write(to: URL(fileURLWithPath: c))
        let (long, _) = try start(c, wait: "60")
        Thread.sleep(forTimeInterval: 0.3)
        let quick = try importer(["run", "--store", store, "--wait", "0.2", sample("fireball-2026.json")])
        long.waitUntilExit()
        #expect(long.terminationStatus == 0)
        #expect(quick.status == 0 || quick.status == 75)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }

    @Test func progressAppearsOnlyOnATerminal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = directory.path("big.json")
        try Data(CrashTests.largeFeed(count: 80_000, offset: 0).utf8).write(to: URL(fileURLWithPath: feed))

        // Standard error on a pseudo-terminal: `script` (util-linux) runs the command on one and
        // copies what it writes there; standard output goes to a file, so that is standard error.
        let quoted = [importerBinary, "run", "--store", directory.path("tty.sqlite"), feed].map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", "\(quoted) > '\(directory.path("stdout.txt"))'", "/dev/null"]
        let captured = Pipe()
        process.standardOutput = captured
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let seen = captured.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = String(decoding: seen, as: UTF8.self)
        #expect(text.contains("records/s"), "\(text)")
        #expect(text.contains("ETA"))
        // After reading, the steps that follow are named instead of a stalled 100 %.
        for step in ["step 2 of 4: writing history", "step 3 of 4: replaying views", "step 4 of 4: committing"] {
            #expect(text.contains(step), "\(step)")
        }
        #expect(try String(contentsOfFile: directory.path("stdout.txt"), encoding: .utf8).contains("80000 inserted"))

        // The same run with standard error on a pipe: silent.
        let piped = try importer(["run", "--store", directory.path("pipe.sqlite"), feed])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
    }

    @Test func logsAreOneLinePerEventAndCanBeJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let failed = try importer(["run", "--store", directory.path("s.sqlite"), "--log-format", "json", sample("malformed/truncated.json")])
        #expect(failed.status == 65)
        let lines = failed.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        let event = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(event["level"] as? String == "error")
        #expect((event["message"] as? String)?.contains("truncated.json:4:57") == true)
        #expect(event["time"] is String)
        let verbose = try importer(["run", "--store", directory.path("s.sqlite"), "--verbose", sample("fireball-2024.json")])
        #expect(verbose.stderr.contains("importer: debug: reading feed"))
        #expect(verbose.stderr.contains("committed"))
        let quiet = try importer(["run", "--store", directory.path("s.sqlite"), "--quiet", sample("fireball-2026.json")])
        #expect(quiet.stderr.isEmpty)
    }

    @Test func severalReportsAreWrittenAtomically() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let json = directory.path("run.json"), ndjson = directory.path("run.ndjson")
        let run = try importer(["run", "--store", store, "--report", "json", "--output", json, "--report", "ndjson", "--output", ndjson, "--report", "text", sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Fireball: 10 inserted"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect((report["changes"] as? [Any])?.count == 10)
        let lines = try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 12)
        // A failing run leaves the previous report in place, and no temporary file behind.
        let before = try Data(contentsOf: URL(fileURLWithPath: json))
        #expect(try importer(["run", "--store", store, "--report", "json", "--output", json, sample("malformed/truncated.json")]).status == 65)
        #expect(try Data(contentsOf: URL(fileURLWithPath: json)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        // `report` reads any range; `history` too.
        let token = try #require((report["transaction"] as? [String: Any])?["token"] as? String)
        let ranged = try importer(["report", "--store", store, "--through", token, "--report", "json"])
        #expect(((ranged.json as? [String: Any])?["transactions"] as? [Any])?.count == 1)
    }

    @Test func statusDescribesTheStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        try importer(["consumers", "add", "mailer", "--store", store, "--from", "beginning"])
        try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")])
        let status = try importer(["status", "--store", store, "--format", "json"])
        #expect(status.status == 0, "\(status.stderr)")
        let json = try #require(status.json as? [String: Any])
        #expect(json["schema_version"] as? Int == 4)
        #expect((json["entities"] as? [String: [String: Any]])?["Fireball"]?["records"] as? Int == 11)
        let history = try #require(json["history"] as? [String: Any])
        #expect(history["transactions"] as? Int == 2)
        #expect(history["changes"] as? Int == 18)
        #expect(history["purged_through"] as? Int == 0)
        let consumers = try #require(json["consumers"] as? [[String: Any]])
        #expect(consumers.first?["lag"] as? [String: Int] == ["transactions": 2, "changes": 18])
        #expect((json["views"] as? [[String: Any]])?.count == 2)
        let text = try importer(["status", "--store", store])
        #expect(text.stdout.contains("History: 2 transaction(s), 18 change(s)"))
    }

    @Test func completionsAndManualAreGenerated() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try importer(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("importer"))
            #expect(script.stdout.contains("consumers"))
        }
    }
}
