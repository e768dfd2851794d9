import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `--store postgres://…` against the tests' throwaway PostgreSQL cluster: the store is created in
/// the database, imports match SQLite's change reports, connection failures exit 69 naming host
/// and database, watch hears commits; views, undo and query behave as on SQLite.
@Suite struct PostgresStoreTests {
    /// The JSON run report without the transaction's own metadata (token, time, process).
    static func changeReport(_ execution: Execution) -> NSDictionary? {
        guard let object = execution.json as? [String: Any] else { return nil }
        return object.filter { $0.key != "transaction" } as NSDictionary
    }

    /// A view's rows as `views show --format json` prints them, numbers as doubles.
    static func viewRows(_ view: String, store: String) throws -> [[String: Double]] {
        let shown = try importer(["views", "show", view, "--format", "json", "--store", store])
        let rows = shown.json as? [[String: Any]] ?? []
        return rows.map { $0.compactMapValues { ($0 as? NSNumber)?.doubleValue } }
    }

    /// The real-data sequence (2024 snapshot, then 2026 with --sync, the built-in model with its key
    /// drift rule and its two views) gives the same counts and the same JSON change report on
    /// PostgreSQL as on SQLite, the views hold the same rows and verify on both, an export as of
    /// the first transaction and a re-keyed record's timeline are the same; then history, status
    /// and consumers work.
    @Test func theSampleSequenceReportsTheSameChangesAsSQLite() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let sqlite = directory.path("s.sqlite")
        for (feed, sync) in [("fireball-2024.json", false), ("fireball-2026.json", true)] {
            let arguments = ["run", "--format", "json"] + (sync ? ["--sync"] : []) + [sample(feed)]
            let onSQLite = try importer(arguments + ["--store", sqlite])
            let onPostgres = try importer(arguments + ["--store", url])
            #expect(onSQLite.status == 0 && onPostgres.status == 0, "\(onPostgres.stderr)")
            #expect(Self.changeReport(onPostgres) != nil)
            #expect(Self.changeReport(onPostgres) == Self.changeReport(onSQLite), "\(feed): \(onPostgres.stdout)")
        }
        for view in ["fireball_by_year", "fireball_by_region"] {
            let rows = try Self.viewRows(view, store: url)
            #expect(rows.count >= 5)
            #expect(rows.count == (try Self.viewRows(view, store: sqlite)).count)
            for (a, b) in zip(rows, try Self.viewRows(view, store: sqlite)) {
                #expect(a.keys == b.keys && a.allSatisfy { abs($0.value - (b[$0.key] ?? .nan)) <= 1e-9 * max(1, abs($0.value)) }, "\(view): \(a) vs \(b)")
            }
        }
        // History truth: the export as of the first transaction and a re-keyed record's timeline.
        var asOf: [String] = [], timelines: [NSObject?] = []
        for store in [url, sqlite] {
            let first = try importer(["query", "SELECT token FROM importer_transaction WHERE number = 1", "--raw", "--store", store])
            let export = try importer(["export", "--as-of", first.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--format", "csv", "--store", store])
            #expect(export.status == 0 && export.stdout.split(whereSeparator: \.isNewline).count == 11, "\(export.stderr)")
            asOf.append(export.stdout)
            timelines.append(Self.comparable(try importer(["history", "--key", "2023-04-11 14:52:10", "--format", "json", "--store", store])))
        }
        #expect(asOf[0] == asOf[1])
        #expect(timelines[0] != nil && timelines[0] == timelines[1])
        for store in [url, sqlite] {
            let verify = try importer(["views", "verify", "--store", store])
            #expect(verify.status == 0 && verify.stdout.contains("match"), "\(verify.stdout)\(verify.stderr)")
        }
        let history = try importer(["history", "--store", url, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.contains("\"rekeyed\":1") && history.stdout.contains("\"deleted\":2"), "\(history.stdout)")
        let status = try importer(["status", "--store", url])
        #expect(status.status == 0 && status.stdout.contains("2 transaction(s)"), "\(status.stdout)\(status.stderr)")
        #expect(try importer(["consumers", "add", "mailer", "--from", "beginning", "--store", url]).status == 0)
        let pending = try importer(["history", "--consumer", "mailer", "--store", url])
        #expect(pending.status == 0 && pending.stdout.contains("Transaction 2"), "\(pending.stderr)")
        let database = PostgresTestCluster.database(of: url)
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database) == "11")
    }

    /// The JSON of a command without what differs between any two stores (ids of the store and
    /// of the transaction, times, process).
    static func comparable(_ execution: Execution, without more: [String] = []) -> NSObject? {
        let ignored = ["store_id", "token", "timestamp", "process_id", "context"] + more
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { !ignored.contains($0.key) }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return execution.json.map { strip($0) as? NSObject } ?? nil
    }

    /// Views replayed later (`run --no-replay`, then `replay`), rebuilt, and `undo` give what they
    /// give on SQLite: the same view rows, the same inverse transaction in JSON, views verifying.
    @Test func replayRebuildAndUndoMatchSQLite() throws {
        let url = try PostgresTestCluster.start().newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let sqlite = directory.path("s.sqlite")
        var undone: [NSObject?] = []
        for store in [url, sqlite] {
            #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
            #expect(try importer(["run", "--no-replay", "--sync", "--store", store, sample("fireball-2026.json")]).status == 0)
            #expect(try importer(["views", "verify", "--store", store]).status == 1)
            let replay = try importer(["replay", "--store", store])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(try importer(["views", "verify", "--store", store]).status == 0)
            let rebuild = try importer(["views", "rebuild", "fireball_by_region", "--store", store])
            #expect(rebuild.status == 0, "\(rebuild.stderr)")
            let undo = try importer(["undo", "--last", "--format", "json", "--store", store])
            #expect(undo.status == 0, "\(undo.stderr)")
            undone.append(Self.comparable(undo))
            let verify = try importer(["views", "verify", "--store", store])
            #expect(verify.status == 0, "\(verify.stdout)")
            let first = try importer(["query", "SELECT token FROM importer_transaction WHERE number = 1", "--raw", "--store", store])
            let alone = try importer(["undo", first.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--store", store])
            #expect(alone.status == 65 && alone.stderr.contains("later transactions"), "\(alone.stderr)")
        }
        #expect(undone[0] != nil && undone[0] == undone[1], "\(String(describing: undone[0]))")
        for view in ["fireball_by_year", "fireball_by_region"] {
            #expect(try Self.viewRows(view, store: url).map { $0.mapValues { ($0 * 1e9).rounded() } }
                    == Self.viewRows(view, store: sqlite).map { $0.mapValues { ($0 * 1e9).rounded() } })
        }
    }

    /// Two feeds supplying different attributes of one entity in one run (the API answer with and
    /// without its velocity components) merge as on SQLite: the same changes, counts and records
    /// (record ids aside: SQLite's upsert of a partial feed burns ids where PostgreSQL's does not).
    @Test func feedsSupplyingDifferentAttributesMergeAsOnSQLite() throws {
        let url = try PostgresTestCluster.start().newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let sqlite = directory.path("s.sqlite")
        func withoutIDs(_ execution: Execution) -> NSObject? { Self.comparable(execution, without: ["record_id"]) }
        for feeds in [["fireball-2024.json", "fireball-vel-comp.json"], ["fireball-vel-comp.json", "fireball-2026.json"]] {
            let arguments = ["run", "--format", "json"] + (feeds.last == "fireball-2026.json" ? ["--sync"] : []) + feeds.map(sample)
            let onPostgres = try importer(arguments + ["--store", url])
            let onSQLite = try importer(arguments + ["--store", sqlite])
            #expect(onPostgres.status == 0, "\(onPostgres.stderr)")
            #expect(withoutIDs(onPostgres) != nil && withoutIDs(onPostgres) == withoutIDs(onSQLite), "\(feeds)")
        }
        let exports = try [url, sqlite].map { try importer(["export", "--format", "csv", "--store", $0]).stdout }
        #expect(exports[0] == exports[1] && exports[0].contains("-7.9"))
        #expect(try importer(["views", "verify", "--store", url]).status == 0)
    }

    /// `query` runs one read-only statement with named parameters; a write is refused by the server
    /// (exit 65) and changes nothing; a foreign write to an entity table is refused too.
    @Test func queryIsReadOnlyAndForeignWritesAreRefused() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        #expect(try importer(["run", "--store", url, sample("fireball-2024.json")]).status == 0)
        let rows = try importer(["query", "SELECT year, count FROM fireball_by_year WHERE year >= :y ORDER BY year", "--param", "y=2023",
                                 "--format", "csv", "--store", url])
        #expect(rows.status == 0 && rows.stdout.hasPrefix("\"year\",\"count\"") && rows.stdout.contains("2023,3"), "\(rows.stdout)")
        let empty = try importer(["query", "SELECT date FROM fireball WHERE false", "--format", "json", "--store", url])
        #expect(empty.status == 0 && empty.stdout.contains("["), "\(empty.stdout)")
        for write in ["DELETE FROM fireball", "WITH d AS (DELETE FROM fireball RETURNING 1) SELECT count(*) FROM d",
                      "SELECT nextval('fireball_id_seq')", "SELECT 1; DELETE FROM fireball"] {
            let refused = try importer(["query", write, "--store", url])
            #expect(refused.status == 65, "\(write): \(refused.stderr)")
        }
        #expect(try importer(["query", "SELECT :missing", "--store", url]).status == 64)
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database) == "10")
        #expect(throws: (any Error).self) { try cluster.psql("DELETE FROM fireball", database: database) }
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database) == "10")
    }

    /// One writer per store: a run meeting the writer lock exits 75 with --no-wait, and waits for
    /// it with --wait; two runs at once both succeed, one after the other.
    @Test func writersTakeTurnsThroughTheAdvisoryLock() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        #expect(try importer(["run", "--no-replay", "--store", url, sample("fireball-2024.json")]).status == 0)
        let holder = try cluster.holdWriterLock(database: database, seconds: 2)
        let busy = try importer(["run", "--no-replay", "--no-wait", "--store", url, sample("fireball-2026.json")])
        #expect(busy.status == 75 && busy.stderr.contains("is busy"), "\(busy.stderr)")
        let waited = try importer(["run", "--no-replay", "--wait", "20", "--store", url, sample("fireball-2026.json")])
        #expect(waited.status == 0, "\(waited.stderr)")
        holder.waitUntilExit()
        #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: database) == "2")

        let other = try cluster.newStoreURL()
        let group = DispatchGroup()
        let results = Results()
        for feed in ["fireball-2024.json", "fireball-2026.json"] {
            DispatchQueue.global().async(group: group) {
                let status = (try? importer(["run", "--no-replay", "--wait", "30", "--store", other, sample(feed)]).status) ?? -1
                results.append(status)
            }
        }
        group.wait()
        #expect(results.values == [0, 0])
        let otherDatabase = String(other.split(separator: "/").last ?? "")
        #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: otherDatabase) == "2")
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var statuses: [Int32] = []
        func append(_ status: Int32) { lock.withLock { statuses.append(status) } }
        var values: [Int32] { lock.withLock { statuses } }
    }

    /// Rejects are kept with their run; a bad feed fails as it does on SQLite (exit 65), its error
    /// passed through rather than turned into a database error.
    @Test func rejectsAndFeedErrorsAsOnSQLite() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let run = try importer(["run", "--no-replay", "--model", repositoryRoot.appendingPathComponent("SampleData/models/fireball-ndjson.yaml").path,
                                "--max-rejects", "5", "--store", url, repositoryRoot.appendingPathComponent("SampleData/rejects/fireball-2024-rejects.ndjson").path])
        #expect(run.status == 0, "\(run.stderr)")
        let rejects = try importer(["rejects", "show", "--store", url])
        #expect(rejects.status == 0 && rejects.stdout.contains("a required attribute is null"), "\(rejects.stdout)\(rejects.stderr)")
        let bad = try importer(["run", "--no-replay", "--store", url, repositoryRoot.appendingPathComponent("SampleData/malformed/bad-number.json").path])
        #expect(bad.status == 65 && bad.stderr.contains("expected a number") && !bad.stderr.contains("PostgreSQL error"), "\(bad.stderr)")
    }

    /// `watch` in one process sees an import committed by another within a second (LISTEN/NOTIFY).
    @Test func watchSeesAnotherProcessesImport() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        #expect(try importer(["run", "--no-replay", "--store", url, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["consumers", "add", "mailer", "--from", "beginning", "--store", url]).status == 0)
        let outputPath = directory.path("watch.ndjson")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: importerBinary)
        watch.arguments = ["watch", "--store", url, "--consumer", "mailer", "--interval", "0.1"]
        watch.standardOutput = output
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { watch.terminate(); watch.waitUntilExit() }
        func lines() -> Int {
            ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        func waitFor(_ count: Int, seconds: Double) -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if lines() >= count { return Date().timeIntervalSince(start) }
                usleep(20_000)
            }
            return nil
        }
        #expect(waitFor(10, seconds: 10) != nil, "the first pass prints the first import's 10 changes")
        #expect(try importer(["run", "--no-replay", "--sync", "--store", url, sample("fireball-2026.json")]).status == 0)
        let seen = waitFor(18, seconds: 5)
        #expect(seen != nil && (seen ?? 99) < 1.0, "watch saw the import after \(seen.map { "\($0)" } ?? "never") s")
    }

    /// A connection lost inside the write transaction (the server ends the session while the run
    /// waits for the writer lock) commits nothing and exits 69 naming the store.
    @Test func aLostConnectionCommitsNothing() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        #expect(try importer(["run", "--no-replay", "--store", url, sample("fireball-2024.json")]).status == 0)
        let holder = try cluster.holdWriterLock(database: database, seconds: 8)
        defer { holder.waitUntilExit() }
        // Ends the run's session as soon as it is connected (and so waiting for the lock).
        DispatchQueue.global().async {
            for _ in 0..<200 {
                let ended = try? cluster.psql("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'importer' AND datname = '\(database)') t")
                if let ended, ended != "0" { return }
                usleep(50_000)
            }
        }
        let run = try importer(["run", "--no-replay", "--wait", "20", "--sync", "--store", url, sample("fireball-2026.json")])
        #expect(run.status == 69 && run.stderr.contains("connection was lost"), "\(run.status) \(run.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: database) == "1")
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database) == "10")
    }

    /// A connection lost while a first load streams its batches through COPY (the server ends the
    /// session mid-copy) commits nothing and exits 69; a rerun then loads every record as a first load.
    @Test func aConnectionLostMidCopyCommitsNothing() throws {
        let load = try InterruptedFirstLoad()
        defer { load.directory.cleanup() }
        let ended = Box()
        DispatchQueue.global().async {
            for _ in 0..<600 {
                if let count = try? load.copyingSessions(terminating: true), count != "0" { ended.value = true; return }
                usleep(20_000)
            }
        }
        let run = try importer(["run", "--no-replay", "--store", load.url, load.feed])
        try #require(ended.value, "the session was ended during a COPY")
        #expect(run.status == 69 && run.stderr.contains("connection was lost"), "\(run.status) \(run.stderr)")
        try load.expectARerunLoadsEverything()
    }

    /// SIGINT while a first load's batches are being COPied: the run stops, rolls back and exits
    /// 130 (closing the connection during a COPY must not trap), leaving nothing; a rerun loads all.
    @Test func aSignalDuringACopyRollsBack() throws {
        let load = try InterruptedFirstLoad()
        defer { load.directory.cleanup() }
        for round in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: importerBinary)
            process.arguments = ["run", "--no-replay", "--store", load.url, load.feed]
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            var copying = false
            for _ in 0..<500 where !copying {
                copying = try load.copyingSessions() != "0"
                if !copying { usleep(10_000) }
            }
            // Later rounds wait a little more, to land elsewhere in the copying.
            usleep(UInt32(round) * 150_000)
            kill(process.processIdentifier, SIGINT)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(copying, "round \(round): the run was copying when signalled")
            #expect(process.terminationStatus == 130 && process.terminationReason == .exit, "round \(round): \(process.terminationStatus) \(stderr)")
            #expect(stderr.contains("SIGINT"), "\(stderr)")
        }
        try load.expectARerunLoadsEverything()
    }

    /// A fresh store and a 300,000-record feed, for the tests that interrupt a first load's COPY.
    private struct InterruptedFirstLoad {
        let cluster: PostgresTestCluster
        let url: String
        let database: String
        let directory: TemporaryDirectory
        let feed: String

        init() throws {
            cluster = try PostgresTestCluster.start()
            url = try cluster.newStoreURL()
            database = PostgresTestCluster.database(of: url)
            directory = try TemporaryDirectory()
            feed = directory.path("big.json")
            try Data(CrashTests.largeFeed(count: 300_000, offset: 0).utf8).write(to: URL(fileURLWithPath: feed))
        }

        /// How many of the store's importer sessions run a COPY (each ended, with `terminating`).
        func copyingSessions(terminating: Bool = false) throws -> String {
            try cluster.psql("""
                SELECT count(*) FROM (SELECT \(terminating ? "pg_terminate_backend(pid)" : "pid") FROM pg_stat_activity
                WHERE application_name = 'importer' AND datname = '\(database)' AND query LIKE 'COPY%' AND state = 'active') t
                """)
        }

        /// Nothing of the interrupted runs was committed: a rerun is a first load of every record.
        func expectARerunLoadsEverything() throws {
            let rerun = try importer(["run", "--no-replay", "--store", url, feed])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: database) == "1")
            #expect(try cluster.psql("SELECT count(*) FROM importer_change_fireball WHERE importer_type = 'insert'", database: database) == "300000")
            #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database) == "300000")
        }
    }

    /// A fresh store on the test cluster, the name of its database, and a temporary directory (the
    /// caller cleans it up).
    static func freshStore() throws -> (cluster: PostgresTestCluster, url: String, database: String, directory: TemporaryDirectory) {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        return (cluster, url, PostgresTestCluster.database(of: url), try TemporaryDirectory())
    }

    /// Text with the NUL character, which an SQLite store keeps, cannot go into PostgreSQL: the
    /// run fails with exit 65 naming the feed, line, record and attribute, and imports nothing.
    @Test func textWithANulCharacterIsBadInputNamingTheRecord() throws {
        let (cluster, url, database, directory) = try Self.freshStore()
        defer { directory.cleanup() }
        let model = directory.path("notes.yaml")
        try """
            entities:
            - name: Note
              table: note
              key: [nid]
              attributes:
              - {name: nid, type: integer, required: true}
              - {name: body, type: text}
            feeds:
            - name: notes
              entity: Note
              format: ndjson
              fields:
              - {attribute: nid, field: nid}
              - {attribute: body, field: body}
            """.write(toFile: model, atomically: true, encoding: .utf8)
        let feed = directory.path("notes.ndjson")
        try "{\"nid\":1,\"body\":\"fine\"}\n{\"nid\":2,\"body\":\"nul\\u0000inside\"}\n".write(toFile: feed, atomically: true, encoding: .utf8)
        for first in [true, false] {
            if !first {
                // Now a re-load (the staged path): one good record stored first.
                try "{\"nid\":3,\"body\":\"ok\"}\n".write(toFile: directory.path("ok.ndjson"), atomically: true, encoding: .utf8)
                #expect(try importer(["run", "--model", model, "--store", url, directory.path("ok.ndjson")]).status == 0)
            }
            let run = try importer(["run", "--model", model, "--store", url, feed])
            #expect(run.status == 65, "\(run.status) \(run.stderr)")
            #expect(run.stderr.contains("\(feed):2:1 (record 1, body): PostgreSQL text cannot hold the NUL character (U+0000)"), "\(run.stderr)")
            let stored = first ? "SELECT count(*) FROM pg_tables WHERE tablename = 'note'" : "SELECT count(*) FROM note"
            #expect(try cluster.psql(stored, database: database) == (first ? "0" : "1"), "a first load leaves not even the table")
        }
        let sqlite = directory.path("s.sqlite")
        #expect(try importer(["run", "--model", model, "--store", sqlite, feed]).status == 0, "an SQLite store keeps it")
        // A rejected value holding one is stored with the reject, as the visible escape \u0000.
        let rejected = directory.path("rejected.ndjson")
        try "{\"nid\":\"4\\u00005\",\"body\":\"x\"}\n{\"nid\":6,\"body\":\"y\"}\n".write(toFile: rejected, atomically: true, encoding: .utf8)
        let run = try importer(["run", "--model", model, "--max-rejects", "1", "--store", url, rejected])
        #expect(run.status == 0, "\(run.stderr)")
        let shown = try importer(["rejects", "show", "--format", "ndjson", "--store", url])
        #expect(shown.status == 0 && shown.stdout.contains(#"4\\u00005"#), "\(shown.stdout)")
    }

    /// A unique index added to the store by hand that a feed's records break: exit 65 naming the
    /// feed and, in the server's words, the values (PostgreSQL writes a batch in one statement, so
    /// the record is not located); nothing is imported, on a first load and on a re-load.
    @Test func aUniqueIndexAddedByHandRefusingRecordsIsBadInput() throws {
        let (cluster, url, database, directory) = try Self.freshStore()
        defer { directory.cleanup() }
        let model = directory.path("notes.yaml")
        try ReportFormatsTests.notesModel.write(toFile: model, atomically: true, encoding: .utf8)
        let first = directory.path("first.ndjson")
        try "{\"number\":1,\"kind\":\"k\",\"body\":\"same\"}\n".write(toFile: first, atomically: true, encoding: .utf8)
        #expect(try importer(["run", "--model", model, "--store", url, first]).status == 0)
        _ = try cluster.psql("CREATE UNIQUE INDEX note_body ON note (body)", database: database)
        let feed = directory.path("next.ndjson")
        try "{\"number\":2,\"kind\":\"k\",\"body\":\"other\"}\n{\"number\":3,\"kind\":\"k\",\"body\":\"same\"}\n"
            .write(toFile: feed, atomically: true, encoding: .utf8)
        let run = try importer(["run", "--model", model, "--store", url, feed])
        #expect(run.status == 65, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("the store refused a record of \(feed): duplicate key value violates unique constraint \"note_body\""), "\(run.stderr)")
        #expect(run.stderr.contains("(body)=(same)"), "the server's detail names the values: \(run.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM note", database: database) == "1")
        #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: database) == "1")
    }

    /// Rejects are stored in batches on PostgreSQL: 1,500 of them (three batches and a rest)
    /// come back as on SQLite, in feed order.
    @Test func manyRejectsAreKeptInOrderAsOnSQLite() throws {
        let url = try PostgresTestCluster.start().newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let rows = (0..<3_000).map { n in
            let date = "2001-01-01 00:" + String(format: "%02d:%02d", n / 60 % 60, n % 60)
            let energy = n % 2 == 0 ? "bad\(n)" : "1.5"
            return #"["\#(date)","\#(energy)","0.1",null,null,null,null,null,null]"#
        }
        let feed = directory.path("rejects.json")
        try #"{"signature":{"version":"1.2"},"count":"3000","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":[\#(rows.joined(separator: ","))]}"#
            .write(toFile: feed, atomically: true, encoding: .utf8)
        var shown: [[String]] = []
        for store in [url, directory.path("s.sqlite")] {
            let run = try importer(["run", "--no-replay", "--max-rejects", "5000", "--store", store, feed])
            #expect(run.status == 0, "\(run.stderr)")
            let rejects = try importer(["rejects", "show", "1", "--format", "ndjson", "--store", store])
            shown.append(rejects.stdout.split(separator: "\n").map { line in
                String(line.replacingOccurrences(of: #""created_at":"[^"]*","#, with: "", options: .regularExpression))
            })
        }
        #expect(shown[0].count == 1_500 && shown[0] == shown[1])
        #expect(shown[0].first?.contains("bad0") == true && shown[0].last?.contains("bad2998") == true)
    }

    private final class Box: @unchecked Sendable {
        var value = false
    }

    @Test func aStoreInItsOwnSchemaAndFromTheEnvironment() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL(schema: "feeds")
        let database = PostgresTestCluster.database(of: url)
        #expect(try importer(["run", sample("fireball-2024.json")], environment: ["IMPORTER_STORE": url]).status == 0)
        // The store's 8 tables and its model versions, the entity's table and its change table, the
        // two views' tables.
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'feeds'", database: database) == "13")
    }

    @Test func readingAStoreThatDoesNotExistIsNoInput() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let history = try importer(["history", "--store", url])
        #expect(history.status == 66, "\(history.stderr)")
    }

    @Test func connectionFailuresExit69WithoutThePassword() throws {
        let cluster = try PostgresTestCluster.start()
        let missing = try importer(["status", "--store", "postgres://postgres:hunter2@127.0.0.1:\(cluster.port)/no_such_database"])
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.stderr.contains("127.0.0.1:\(cluster.port)/no_such_database") && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("hunter2"))
        let down = try importer(["run", "--store", "postgresql://postgres:hunter2@127.0.0.1:1/fireballs", sample("fireball-2024.json")])
        #expect(down.status == 69 && !down.stderr.contains("hunter2"), "\(down.stderr)")
    }
}
