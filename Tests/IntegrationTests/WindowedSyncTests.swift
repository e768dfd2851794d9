import Foundation
import HTTPTestSupport
import ImporterTestSupport
import PostgresTestSupport
import Synchronization
import Testing

/// Windowed sync (issue 46.2): a feed that covers part of an entity (`sync: {scope: date}`)
/// deletes, under `--sync`, only the stored records of the window it covers that it no longer
/// holds. A loopback API answers `date-min` queries from a catalogue that changes between runs.
@Suite struct WindowedSyncTests {
    /// The catalogue: date → energy. The API answers the events from `date-min` (a date) on.
    static func answer(_ catalogue: [String: String], uri: String) -> String {
        let since = URLComponents(string: uri)?.queryItems?.first { $0.name == "date-min" }?.value ?? ""
        let rows = catalogue.filter { $0.key >= since }.sorted { $0.key < $1.key }
            .map { #"["\#($0.key)", "\#($0.value)", "0.1", "10.0", "N", "20.0", "E", null, null]"# }
        return #"{"signature": {"source": "NASA/JPL Fireball Data API", "version": "1.2"}, "count": "\#(rows.count)", "#
            + #""fields": ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"], "data": [\#(rows.joined(separator: ", "))]}"#
    }

    /// The built-in model reading the API incrementally, with a 30-day look-back and `date` as the
    /// scope of a sync.
    static func model(port: Int, in directory: TemporaryDirectory) throws -> String {
        let text = try importer(["model", "show"]).stdout.replacingOccurrences(of: "- name: fireball-api\n", with: """
            - name: fireball-api
              url: "http://127.0.0.1:\(port)/fireball.api?date-min={since}"
              url-values:
                since: {max: date, format: date, initial: "2024-01-01", lag: 30d}
              sync: {scope: date}

            """)
        return try directory.write("model.yaml", text)
    }

    static let first = [
        "2024-01-10 10:00:00": "1.0", "2024-02-10 10:00:00": "2.0", "2024-03-10 10:00:00": "3.0",
        "2024-05-25 10:00:00": "4.0", "2024-06-01 10:00:00": "5.0", "2024-06-10 10:00:00": "6.0", "2024-06-20 10:00:00": "7.0",
    ]

    @Test(arguments: ["sqlite", "postgres"]) func aDailyLookBackSyncsOnlyItsWindow(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let catalogue = Mutex(Self.first)
        let server = try TestHTTPServer { request in
            .init(headers: [("Content-Type", "application/json")], text: Self.answer(catalogue.withLock { $0 }, uri: request.uri))
        }
        defer { server.stop() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory), model = try Self.model(port: server.port, in: directory)
        let one = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json"])
        #expect(one.status == 0 && ChildEntityTests.counts(one, "Fireball")["inserted"] == 7, "\(one.stdout)\(one.stderr)")
        // Upstream: a revision and a delete inside the 30 days before 2024-06-20, an event
        // back-filled there, one re-timed by a second, a new one; a delete and a revision before it.
        catalogue.withLock { events in
            events["2024-06-01 10:00:00"] = "5.5"
            events["2024-06-10 10:00:00"] = nil
            events["2024-05-30 08:00:00"] = "8.0"
            events["2024-05-25 10:00:00"] = nil
            events["2024-05-25 10:00:01"] = "4.0"
            events["2024-07-01 10:00:00"] = "9.0"
            events["2024-02-10 10:00:00"] = nil
            events["2024-03-10 10:00:00"] = "3.5"
        }
        let two = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json"])
        #expect(two.status == 0, "\(two.stdout)\(two.stderr)")
        #expect(server.requests.last?.uri == "/fireball.api?date-min=2024-05-21", "30 days before the newest stored date")
        #expect(ChildEntityTests.counts(two, "Fireball") == ["inserted": 2, "updated": 2, "deleted": 1, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 1],
                "the revision, the re-timing, the back-fill and the new event, the delete inside the window: \(two.stdout)")
        let window = ((two.json as? [String: Any])?["sync_windows"] as? [[String: Any]])?.first
        #expect(window?["attribute"] as? String == "date" && window?["from"] as? String == "2024-05-21 10:00:00" && window?["to"] is NSNull, "\(two.stdout)")
        let stored = try importer(["query", "--store", store, "--format", "csv", "SELECT date, energy FROM fireball ORDER BY date"]).stdout
            .split(separator: "\r\n").dropFirst().map(String.init)
        #expect(stored == [#""2024-01-10 10:00:00",1"#, #""2024-02-10 10:00:00",2"#, #""2024-03-10 10:00:00",3"#, #""2024-05-25 10:00:01",4"#,
                           #""2024-05-30 08:00:00",8"#, #""2024-06-01 10:00:00",5.5"#, #""2024-06-20 10:00:00",7"#, #""2024-07-01 10:00:00",9"#],
                "older records untouched (the revision and the delete before the window unseen): \(stored)")
        // The window's delete is history like any other: undone, the event is back.
        let undo = try importer(["undo", "--store", store, "--last"])
        #expect(undo.status == 0 && undo.stdout.contains("+ Fireball 2024-06-10 10:00:00"), "\(undo.stdout)\(undo.stderr)")
    }

    /// The window on the command line overrides the feed's; the delete guard counts the records in
    /// the window; an empty answer deletes nothing unless allowed; a source without a scope still
    /// cannot sync; each refusal writes nothing. Both backends.
    /// A look-back never reaches before `initial`: the first run's records span ten days, so 30
    /// days before the newest would ask for December, which a first run from `initial` never read
    /// (the store would hold what it holds by the runs' schedule, not by the catalogue).
    @Test func theLookBackStopsAtInitial() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let catalogue = ["2023-12-20 10:00:00": "0.5", "2024-01-02 10:00:00": "1.0", "2024-01-10 10:00:00": "2.0"]
        let asked = Mutex<[String]>([])
        let server = try TestHTTPServer { request in
            asked.withLock { $0.append(URLComponents(string: request.uri)?.queryItems?.first { $0.name == "date-min" }?.value ?? "") }
            return .init(headers: [("Content-Type", "application/json")], text: Self.answer(catalogue, uri: request.uri))
        }
        defer { server.stop() }
        let store = directory.path("s.sqlite"), model = try Self.model(port: server.port, in: directory)
        for _ in 0..<2 { #expect(try importer(["run", "--store", store, "--model", model, "--sync"]).status == 0) }
        #expect(asked.withLock { $0 } == ["2024-01-01", "2024-01-01"], "\(asked.withLock { $0 })")
        #expect(try DailyWindowedSyncTests.stored(store) == [#""2024-01-02 10:00:00",1"#, #""2024-01-10 10:00:00",2"#])
        // An initial in ISO 8601 bounds it the same; so does one raised later, look-back or not.
        let iso = try String(contentsOfFile: model, encoding: .utf8).replacingOccurrences(of: #"initial: "2024-01-01""#, with: #"initial: "2024-01-01T00:00:00Z""#)
        let isoStore = directory.path("iso.sqlite")
        for _ in 0..<2 { #expect(try importer(["run", "--store", isoStore, "--model", try directory.write("iso.yaml", iso), "--sync"]).status == 0) }
        let raised = iso.replacingOccurrences(of: #"initial: "2024-01-01T00:00:00Z", lag: 30d"#, with: #"initial: "2024-01-20""#)
        let again = try importer(["run", "--store", isoStore, "--model", try directory.write("raised.yaml", raised)])
        #expect(raised != iso && again.status == 0, "\(again.stderr)")
        #expect(asked.withLock { $0 }.suffix(3) == ["2024-01-01T00:00:00Z", "2024-01-01", "2024-01-20"], "\(asked.withLock { $0 })")
    }

    @Test(arguments: ["sqlite", "postgres"]) func guardsCountTheWindowAndTheCommandLineBoundsIt(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let catalogue = Mutex(Self.first)
        let server = try TestHTTPServer { request in
            .init(headers: [("Content-Type", "application/json")], text: Self.answer(catalogue.withLock { $0 }, uri: request.uri))
        }
        defer { server.stop() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory), model = try Self.model(port: server.port, in: directory)
        #expect(try importer(["run", "--store", store, "--model", model]).status == 0)
        catalogue.withLock { events in
            for date in ["2024-05-25 10:00:00", "2024-06-01 10:00:00", "2024-06-10 10:00:00"] { events[date] = nil }
        }
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let guarded = try importer(["run", "--store", store, "--model", model, "--sync"])
        #expect(guarded.status == 65 && guarded.stderr.contains("would delete 3 of the 4 stored Fireball records (75%)"), "the window holds 4: \(guarded.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history, "the refused run wrote nothing")
        let metrics = directory.path("window.prom")
        let bounded = try importer(["run", "--store", store, "--model", model, "--sync", "--window-from", "2024-06-05", "--format", "json", "--metrics-file", metrics])
        #expect(bounded.status == 0 && ChildEntityTests.counts(bounded, "Fireball")["deleted"] == 1, "only 06-10 is in the window: \(bounded.stdout)\(bounded.stderr)")
        let samples = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
        #expect(samples.contains(#"entity="Fireball",attribute="date",bound="from"} 1717545600"#) && !samples.contains(#"bound="to""#),
                "the window in the metrics, 2024-06-05 as Unix time: \(samples)")
        #expect(bounded.stdout.contains(#""origin":"--window-from/--window-to""#), "\(bounded.stdout)")
        catalogue.withLock { $0 = [:] }
        let empty = try importer(["run", "--store", store, "--model", model, "--sync"])
        #expect(empty.status == 65 && empty.stderr.contains("holds no records"), "\(empty.stderr)")
        let unscoped = try directory.write("unscoped.yaml", try String(contentsOfFile: model, encoding: .utf8).replacingOccurrences(of: "  sync: {scope: date}\n", with: ""))
        let refused = try importer(["run", "--store", store, "--model", unscoped, "--sync"])
        #expect(refused.status == 64 && refused.stderr.contains("sync: {scope: date}"), "\(refused.stderr)")
    }

    /// A file feed's window is its own range of the scope: a month's export syncs that month,
    /// deleting what it no longer holds there and nothing before or after it. Both backends.
    @Test(arguments: ["sqlite", "postgres"]) func aFileFeedSyncsItsOwnRange(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let model = try SyncInputErrorTests.model(directory, "scoped.yaml", SyncInputErrorTests.scoped("date"))
        let all = ["2024-01-05 10:00:00": "1.0", "2024-02-05 10:00:00": "2.0", "2024-03-10 10:00:00": "3.0", "2024-04-01 10:00:00": "4.0",
                   "2024-05-01 10:00:00": "5.0", "2024-06-01 10:00:00": "6.0"]
        #expect(try importer(["run", "--store", store, "--model", model, try directory.write("all.json", Self.answer(all, uri: "/"))]).status == 0)
        let spring = try directory.write("spring.json", Self.answer(["2024-03-10 10:00:00": "3.5", "2024-05-01 10:00:00": "5.0"], uri: "/"))
        let run = try importer(["run", "--store", store, "--model", model, "--sync", "--max-delete", "100%", "--format", "json", spring])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Fireball") == ["inserted": 0, "updated": 1, "deleted": 1, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(run.stdout)\(run.stderr)")
        let window = ((run.json as? [String: Any])?["sync_windows"] as? [[String: Any]])?.first
        #expect(window?["from"] as? String == "2024-03-10 10:00:00" && window?["to"] as? String == "2024-05-01 10:00:00"
                && window?["origin"] as? String == "the feed's own range", "\(run.stdout)")
        let stored = try importer(["query", "--store", store, "--format", "csv", "SELECT date FROM fireball ORDER BY date"]).stdout
        #expect(stored.split(separator: "\r\n").count == 6, "April's event deleted, the others kept: \(stored)")
    }

    /// Key drift pairs only stored records inside the window: an event just before the window
    /// (within the 1 s tolerance of a new one just inside it) is not the feed's to re-key; it stays,
    /// and the new one is inserted. Both backends.
    @Test(arguments: ["sqlite", "postgres"]) func driftStaysInsideTheWindow(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let model = try SyncInputErrorTests.model(directory, "scoped.yaml", SyncInputErrorTests.scoped("date"))
        let first = try directory.write("1.json", Self.answer(["2024-06-04 23:59:59": "1.0", "2024-06-10 10:00:00": "2.0"], uri: "/"))
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let second = try directory.write("2.json", Self.answer(["2024-06-05 00:00:00": "3.0", "2024-06-10 10:00:00": "2.0"], uri: "/"))
        let run = try importer(["run", "--store", store, "--model", model, "--sync", "--window-from", "2024-06-05", "--format", "json", second])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Fireball") == ["inserted": 1, "updated": 0, "deleted": 0, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(run.stdout)\(run.stderr)")
        let stored = try importer(["query", "--store", store, "--format", "csv", "SELECT date, energy FROM fireball ORDER BY date"]).stdout
        #expect(stored.split(separator: "\r\n").dropFirst() == [#""2024-06-04 23:59:59",1"#, #""2024-06-05 00:00:00",3"#, #""2024-06-10 10:00:00",2"#], "\(stored)")
    }
}

/// The fault campaign on a windowed sync (issue 46.5): a store of 20,000 fireballs re-synced by a
/// feed that revises, drops and adds records, deleting only inside `--window-from 2000-01-05`, is
/// killed with SIGKILL at random points; each trial leaves the old store or the synced one, on both
/// backends.
@Suite(.serialized) struct WindowedSyncFaultCampaignTests {
    struct Window: CampaignFixture {
        var name: String { "windowed sync" }
        var setup: [[String]] { [["run", "--model", "scoped.yaml", "first.json"]] }
        var lockProbe: [String] { ["run", "--dry-run", "--model", "scoped.yaml", "first.json"] }

        func writeInputs(in directory: TemporaryDirectory) throws {
            let shown = try importer(["model", "show"]).stdout
            _ = try directory.write("scoped.yaml", shown.replacingOccurrences(of: "- name: fireball-api\n", with: "- name: fireball-api\n  sync: {scope: date}\n"))
            try GoldenStoreTests.feed(count: 20_000, reload: false).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
            try GoldenStoreTests.feed(count: 20_000, reload: true).write(toFile: directory.path("reload.json"), atomically: true, encoding: .utf8)
        }
    }

    static let operation = CampaignOperation(name: "run --sync --window-from (windowed sync)", arguments: [
        "run", "--model", "scoped.yaml", "--sync", "--window-from", "2000-01-05", "--max-delete", "100%", "--max-updated", "100%", "reload.json",
    ])

    @Test func killedAtAnyPointLeavesTheOldOrTheSyncedStore() throws {
        try FaultCampaign.run(Self.operation, on: SQLiteRecipeStores(recipe: Window()))
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheSyncedStoreOnPostgreSQL() throws {
        try FaultCampaign.run(Self.operation, on: PostgresRecipeStores(recipe: Window(), cluster: try PostgresTestCluster.start()))
    }
}
