import Foundation
import ImporterKit

/// What replaying a delta into the derived views costs beside rebuilding them, for two deltas of
/// the benchmark's records: a run that revises 1 % of the energies (`Generator`'s change stream, as
/// for the 10 % feed), and the re-load `pair.sh` measures (`Generator.Reload`: 5 % changed, 1 %
/// new, 0.5 % gone, imported with `--sync`: 6.5 % of the records). For each, in this process:
/// - **replay**: `ViewMaintainer.replay(views)`, every view of `snapshot.allViews()` in one call (as
///   `importer run` and `importer replay` do), from the views' token (before the delta) to the
///   head; afterwards `ViewMaintainer.verify(view)` must find no difference;
/// - **rebuild**: `ViewMaintainer.rebuild(view)` for every view (what `importer views rebuild`
///   runs).
///
/// Each pass runs inside one write transaction that is rolled back, so every pass starts from the
/// same store; the two kinds alternate which goes first, `repeats` times, and the fastest pass of
/// each is reported. Timed: the `replay` call, the `rebuild` calls (not BEGIN, verify or ROLLBACK).
/// Target (the project's issues): the replay costs at most twice the delta's share of the records:
/// 2 % of the rebuild for the 1 % delta, 13 % for the re-load.
///
/// SQLite: the store is a copy of the one the importer subprocess left (first load, identical
/// re-load, 10 % changed re-load). PostgreSQL: the importer's database of the PostgreSQL rows, after
/// their re-load. Either is brought back to the plain feed's values in-process before each delta (views
/// replayed, not timed); the delta is imported with `ImportOptions.replayViews = false`, leaving
/// the views one transaction behind.
enum ViewReplayBenchmark {
    struct Outcome {
        var table: BenchTable
        /// Every replay verified equal to a full recomputation.
        var passed: Bool
    }

    /// A delta measured: its feed, how it is imported, its target, and what it must have changed.
    private struct Delta {
        var name: String
        var feed: String
        var sync: Bool
        var target: Double
        /// Why the run is not the expected delta (nil when it is).
        var problem: (ChangeCounts) -> String?
    }

    /// The figures of one pass over the views.
    private struct Pass {
        var seconds = 0.0
        var effects: [String: ViewEffect] = [:]
        var differences: [ViewDifference] = []
    }

    /// On a copy of the SQLite store the importer subprocess left (removed at the end).
    static func run(importerStore: String, baseFeed: String, directory: String, records: Int, repeats: Int) throws -> Outcome {
        let path = directory + "/view-replay.sqlite"
        StoreFiles.remove(path)
        defer { StoreFiles.remove(path) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: importerStore + suffix) {
            try FileManager.default.copyItem(atPath: importerStore + suffix, toPath: path + suffix)
        }
        return try run(store: try Store(path: path), backend: "SQLite", baseFeed: baseFeed, directory: directory, records: records, repeats: repeats)
    }

    /// On `store` itself (a PostgreSQL store the bench's cluster holds): the store is left at the
    /// last delta's state.
    static func run(store: Store, backend: String, baseFeed: String, directory: String, records: Int, repeats: Int) throws -> Outcome {
        let deltas = try writeDeltas(records: records, directory: directory)
        defer { for delta in deltas { try? FileManager.default.removeItem(atPath: delta.feed) } }
        var report = BenchTable(
            title: "View replay beside a full rebuild of the views (\(backend), in-process, \(records) records; best of \(repeats))",
            headers: ["delta", "change rows", "touch the views", "groups changed", "replay ms", "rebuild ms", "replay / rebuild", "target"])
        var passed = true
        for delta in deltas {
            // Back to the plain feed's values, views replayed (not timed).
            let reverted = try ImportSession(store: store, model: FireballModel.model, options: options(sync: true))
                .run([FeedInput(path: baseFeed, mapping: FireballModel.apiFeed)])
            report.notes.append("\(delta.name): store reverted to the plain feed first (\(describe(reverted.totals)), views replayed)")
            passed = try measure(delta, store: store, repeats: repeats, into: &report) && passed
        }
        report.notes += [
            "  change rows: the delta's change rows; touch the views: of those, inserts/deletes and updates of an attribute a view reads",
            "timed: one ViewMaintainer.replay of every view / a .rebuild of each, inside one write transaction rolled back per pass",
            "  (replay passes, then verify, and rebuild passes alternate which goes first); the fastest pass of each kind",
        ]
        return Outcome(table: report, passed: passed)
    }

    /// The two deltas' feeds, written into `directory`.
    private static func writeDeltas(records: Int, directory: String) throws -> [Delta] {
        let generator = Generator(count: records)
        let changedFeed = directory + "/fireball-\(records)-changed-1pct.json"
        try generator.writeFeed(changeFraction: 0.01, to: changedFeed)
        let expected = changedRecords(records, fraction: 0.01)
        let oneChanged = Delta(name: "1 % changed (energy)", feed: changedFeed, sync: false, target: 0.02) { totals in
            totals.updated == expected && totals.inserted == 0 && totals.deleted == 0 ? nil : "expected \(expected) updates only"
        }
        let reloadFeed = directory + "/fireball-\(records)-reload.json"
        let reload = try generator.writeFeed(reload: Generator.Reload(), to: reloadFeed)
        let reloaded = Delta(name: "6.5 % re-load (5 % changed, 1 % new, 0.5 % gone; --sync)", feed: reloadFeed, sync: true, target: 0.13) { totals in
            totals.inserted == reload.new && totals.deleted == reload.gone && totals.updated > 0 ? nil : "expected \(reload.new) inserts and \(reload.gone) deletes"
        }
        return [oneChanged, reloaded]
    }

    private static func options(sync: Bool, replayViews: Bool = true) -> ImportOptions {
        var options = ImportOptions(author: "importer-bench", context: "bench", sync: sync)
        options.replayViews = replayViews
        return options
    }

    private static func describe(_ totals: ChangeCounts) -> String {
        "\(totals.updated) updated, \(totals.inserted) inserted, \(totals.deleted) deleted"
    }

    /// Imports the delta (views left behind), times replay and rebuild passes, adds its row and
    /// notes; returns whether every replay verified.
    private static func measure(_ delta: Delta, store: Store, repeats: Int, into report: inout BenchTable) throws -> Bool {
        let (result, importSeconds) = try Stopwatch.seconds {
            try ImportSession(store: store, model: FireballModel.model, options: options(sync: delta.sync, replayViews: false))
                .run([FeedInput(path: delta.feed, mapping: FireballModel.apiFeed)])
        }
        if let problem = delta.problem(result.totals) {
            throw BenchError.failed("view replay benchmark, \(delta.name): the run \(describe(result.totals)); \(problem)")
        }
        let views = try store.read { (snapshot: StoreSnapshot) throws -> [ViewDefinition] in try snapshot.allViews() }
        guard !views.isEmpty else { throw BenchError.failed("view replay benchmark: the store has no views") }
        let size = try deltaSize(views, store: store)
        let (replays, rebuilds) = try timedPasses(views, maintainer: ViewMaintainer(entities: store.entities), store: store, repeats: repeats)

        let replay = replays.map(\.seconds).min() ?? .nan, rebuild = rebuilds.map(\.seconds).min() ?? .nan
        let ratio = replay / rebuild
        let groups = views.compactMap { replays.first?.effects[$0.name]?.changedGroups }.reduce(0, +)
        func ms(_ seconds: Double) -> String { (seconds * 1000).formatted(1) }
        func percent(_ ratio: Double) -> String { (ratio * 100).formatted(1) + " %" }
        report.add([delta.name, "\(size.changes)", "\(size.relevant)", "\(groups)", ms(replay), ms(rebuild), percent(ratio),
                    "≤ \(percent(delta.target)): \(ratio <= delta.target ? "met" : "NOT met")"])
        let differences = replays.flatMap(\.differences)
        let fellBack = views.filter { view in replays.contains { $0.effects[view.name]?.rebuilt == true } }.map(\.name)
        report.notes.append("  imported (\(describe(result.totals))) with replayViews = false in \(importSeconds.formatted(2)) s; "
            + (differences.isEmpty ? "verify after every replay (\(replays.count) × \(views.count) views): no difference"
                                   : "FAIL: verify found \(differences.count) difference(s) after replay, first: \(differences[0])"))
        if !fellBack.isEmpty {
            report.notes.append("  note: replay fell back to a rebuild (delta too large) for \(fellBack.joined(separator: ", "))")
        }
        return differences.isEmpty && fellBack.isEmpty
    }

    /// `repeats` rounds of a replay pass and a rebuild pass over `views` (alternating which goes
    /// first), each inside one write transaction that is rolled back; replays are verified.
    private static func timedPasses(_ views: [ViewDefinition], maintainer: ViewMaintainer, store: Store, repeats: Int) throws -> (replays: [Pass], rebuilds: [Pass]) {
        var replays: [Pass] = []
        var rebuilds: [Pass] = []
        for round in 0..<repeats {
            for replay in round % 2 == 0 ? [true, false] : [false, true] {
                let pass = try rolledBack(store) { (tx: StoreWriteTransaction) throws -> Pass in
                    var pass = Pass()
                    let (effects, seconds) = try Stopwatch.seconds {
                        try replay ? maintainer.replay(views, in: tx) : views.map { try maintainer.rebuild($0, in: tx) }
                    }
                    pass.seconds = seconds
                    for effect in effects { pass.effects[effect.view] = effect }
                    if replay { pass.differences = try views.flatMap { try maintainer.verify($0, in: tx.snapshot) } }
                    return pass
                }
                if replay { replays.append(pass) } else { rebuilds.append(pass) }
            }
        }
        return (replays, rebuilds)
    }

    /// Runs `body` in a write transaction and rolls it back; returns what `body` returned.
    private static func rolledBack<T>(_ store: Store, _ body: (StoreWriteTransaction) throws -> T) throws -> T {
        let result = try store.inTransaction { (tx: StoreWriteTransaction) throws -> TransactionCompletion<T> in .rollback(try body(tx)) }
        if store.sqliteConnection?.isInTransaction == true { throw BenchError.failed("view replay benchmark: the pass did not roll back") }
        return result
    }

    /// The change rows between the views' token and the head, and how many of them can change a
    /// view (inserts, deletes, updates of an attribute one reads: the rows its replay selects).
    private static func deltaSize(_ views: [ViewDefinition], store: Store) throws -> (changes: Int, relevant: Int) {
        guard let first = views.first, let entity = store.entity(named: first.entity) else { throw BenchError.failed("view replay benchmark: no entity") }
        let token = try store.read { (snapshot: StoreSnapshot) throws -> Int64 in try snapshot.consumer(named: first.name).tokenNumber }
        let range = try queryRow(store, """
            SELECT coalesce(min(first_change_id), 0), coalesce(max(last_change_id), -1) FROM importer_transaction_entity
            WHERE entity = :entity AND transaction_number > :token
            """, ["entity": first.entity, "token": String(token)])
        guard case .integer(let low) = range[0], case .integer(let high) = range[1] else { return (0, 0) }
        let columns = ChangeColumns.current
        let attributes = views.reduce(into: Set<String>()) { $0.formUnion($1.storedAttributes(of: entity)) }
        let touches = attributes.sorted().map { name in
            "',' || \"\(columns.changed)\" || ',' LIKE '%,\(name.replacingOccurrences(of: "_", with: "\\_")),%' ESCAPE '\\'"
        }
        let type = "\"\(columns.type)\""
        let relevant = touches.isEmpty ? "\(type) <> 'update'" : "\(type) <> 'update' OR \(touches.joined(separator: " OR "))"
        let counts = try queryRow(store, """
            SELECT count(*), coalesce(sum(CASE WHEN \(relevant) THEN 1 ELSE 0 END), 0) FROM "importer_change_\(entity.tableName)"
            WHERE "\(columns.changeID)" BETWEEN :low AND :high
            """, ["low": String(low), "high": String(high)])
        guard case .integer(let changes) = counts[0], case .integer(let relevantCount) = counts[1] else { return (0, 0) }
        return (Int(changes), Int(relevantCount))
    }

    /// The one row `sql` returns, read with the store's read-only query (either backend).
    private static func queryRow(_ store: Store, _ sql: String, _ parameters: [String: String]) throws -> [Value] {
        var rows: [[Value]] = []
        try store.query(sql, parameters: parameters, columns: { _ in }, row: { rows.append($0) })
        guard rows.count == 1 else { throw BenchError.failed("view replay benchmark: \(rows.count) rows from \(sql)") }
        return rows[0]
    }

    /// Records whose energy the `fraction` changed feed revises (the generator's change stream).
    static func changedRecords(_ count: Int, fraction: Double) -> Int {
        var plain = Generator.Cursor()
        var changed = Generator.Cursor()
        var n = 0
        for _ in 0..<count {
            if plain.next(changeFraction: 0).energy != changed.next(changeFraction: fraction).energy { n += 1 }
        }
        return n
    }
}
