import Foundation

/// A migration at size (issue 45.6): a store first loaded with the API feed's `records` records,
/// then migrated to a model that renames `energy`, fills a new required `source` on every record
/// and adds an optional `note`, then to one that retypes `velocity` from real to text (every
/// stored and past value converted); alternated `repeats` times, medians.
///
/// Target: the migration within 2× the first load's time, peak RSS < 100 MiB. On SQLite, and on
/// PostgreSQL (the bench's throwaway cluster, a database made anew for each repeat) when one runs.
enum MigrationBenchmark {
    struct Outcome {
        var backend = "SQLite"
        var firstLoad: [ProcessRunner.Measurement] = []
        var migrate: [ProcessRunner.Measurement] = []
        var retype: [ProcessRunner.Measurement] = []
        var records = 0
    }

    /// Where each repeat's store is: a SQLite file, or a database of the bench's cluster.
    enum Stores {
        case sqlite
        case postgres(BenchPostgresCluster)

        static let database = "migration_bench"

        /// A new, empty store's location.
        func fresh(in directory: String) throws -> String {
            switch self {
            case .sqlite:
                StoreFiles.remove(directory + "/migration.sqlite")
                return directory + "/migration.sqlite"
            case .postgres(let cluster):
                _ = try cluster.psql("DROP DATABASE IF EXISTS \(Self.database)")
                _ = try cluster.psql("CREATE DATABASE \(Self.database)")
                return cluster.url(database: Self.database)
            }
        }

        func remove(in directory: String) {
            switch self {
            case .sqlite: StoreFiles.remove(directory + "/migration.sqlite")
            case .postgres(let cluster): _ = try? cluster.psql("DROP DATABASE IF EXISTS \(Self.database)")
            }
        }
    }

    static func run(importer: String, feed: String, records: Int, directory: String, repeats: Int, stores: Stores = .sqlite) throws -> Outcome {
        let model = directory + "/migration-v2.yaml", retyped = directory + "/migration-v3.yaml", report = directory + "/migration-report.txt"
        let shown = try ProcessRunner.run(importer, ["model", "show"], stdout: model)
        guard shown.status == 0 else { throw BenchError.failed("importer model show exited with \(shown.status)") }
        let v2 = version2(of: try String(contentsOfFile: model, encoding: .utf8))
        try v2.write(toFile: model, atomically: true, encoding: .utf8)
        try v2.replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: text\n")
            .write(toFile: retyped, atomically: true, encoding: .utf8)
        defer {
            stores.remove(in: directory)
            for path in [model, retyped, report] { try? FileManager.default.removeItem(atPath: path) }
        }
        var outcome = Outcome(records: records)
        if case .postgres = stores { outcome.backend = "PostgreSQL" }
        for _ in 0 ..< max(repeats, 1) {
            let store = try stores.fresh(in: directory)
            let first = try ProcessRunner.run(importer, ["run", "--store", store, feed], stdout: report)
            guard first.status == 0 else { throw BenchError.failed("importer run exited with \(first.status)") }
            outcome.firstLoad.append(first)
            if case .postgres(let cluster) = stores {
                // As the bench's other PostgreSQL rows: autovacuum is off, so the load is settled before a timed run.
                _ = try cluster.psql("VACUUM ANALYZE", database: Stores.database)
                _ = try cluster.psql("CHECKPOINT")
            }
            let migrated = try ProcessRunner.run(importer, ["migrate", "--store", store, "--model", model], stdout: report)
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            guard migrated.status == 0, text.contains("\(records) stored record(s) take cneos") else {
                throw BenchError.failed("importer migrate exited with \(migrated.status): \(text.prefix(300))")
            }
            outcome.migrate.append(migrated)
            let retype = try ProcessRunner.run(importer, ["migrate", "--store", store, "--model", retyped], stdout: report)
            let retypeText = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            guard retype.status == 0, retypeText.contains("retype Fireball.velocity: real → text") else {
                throw BenchError.failed("importer migrate (retype) exited with \(retype.status): \(retypeText.prefix(300))")
            }
            outcome.retype.append(retype)
        }
        return outcome
    }

    /// The built-in model with `energy` renamed `energy_kt`, a required `source` (default `cneos`,
    /// the feed's constant) and an optional `note`.
    static func version2(of text: String) -> String {
        text.replacingOccurrences(of: "  - name: energy\n", with: "  - name: energy_kt\n    renamed-from: energy\n")
            .replacingOccurrences(of: "tombstone: [date, energy,", with: "tombstone: [date, energy_kt,")
            .replacingOccurrences(of: "attribute: energy\n", with: "attribute: energy_kt\n")
            .replacingOccurrences(of: "  - name: impact_energy\n", with: "  - name: source\n    type: text\n    required: true\n    default: cneos\n  - name: note\n    type: text\n  - name: impact_energy\n")
            .replacingOccurrences(of: "  fields:\n", with: "  fields:\n  - attribute: source\n    constant: cneos\n")
    }

    /// One table of the outcomes (SQLite's, then PostgreSQL's when it ran), each backend's
    /// migrations against its own first load.
    static func table(_ outcomes: [Outcome], skipped: String? = nil) -> BenchTable {
        func median(_ runs: [ProcessRunner.Measurement]) -> Double { runs.map(\.seconds).sorted()[runs.count / 2] }
        func peak(_ runs: [ProcessRunner.Measurement]) -> Int { runs.map(\.peakRSSKiB).max() ?? 0 }
        let records = outcomes.first?.records ?? 0, repeats = outcomes.first?.migrate.count ?? 0
        var table = BenchTable(title: "Migration: \(records) records renamed, filled, widened and retyped (medians of \(repeats))",
                               headers: ["backend", "case", "s", "÷ first load", "peak RSS MiB"])
        for outcome in outcomes {
            let load = median(outcome.firstLoad), migrate = median(outcome.migrate), retype = median(outcome.retype)
            table.add([outcome.backend, "first load (built-in model)", load.formatted(2), "1.00", mebibytes(kiB: peak(outcome.firstLoad))])
            table.add([outcome.backend, "migrate: rename, fill a required attribute, add an optional one", migrate.formatted(2), (migrate / load).formatted(2),
                       mebibytes(kiB: peak(outcome.migrate))])
            table.add([outcome.backend, "migrate: retype velocity real → text (stored and past values)", retype.formatted(2), (retype / load).formatted(2),
                       mebibytes(kiB: peak(outcome.retype))])
            let met = migrate <= 2 * load && retype <= 2 * load && peak(outcome.migrate) < 100 * 1024 && peak(outcome.retype) < 100 * 1024
            table.notes.append("\(outcome.backend): the migration within 2× the first load, peak RSS < 100 MiB: \(met ? "met" : "NOT met").")
        }
        if let skipped { table.notes.append("PostgreSQL rows skipped: \(skipped).") }
        return table
    }
}
