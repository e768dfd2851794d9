import Foundation
import ImporterKit

/// The timed runs of the PostgreSQL rows on a started bench cluster, in this order: the importer's
/// first load, the reference's, then the importer's re-load and the reference's, each contender in a
/// database of its own; after each pair, both databases must hold the same records
/// (`PostgresReference.fingerprint`).
struct PostgresBenchSession {
    static let importerDatabase = "importer_store"
    static let referenceDatabase = "reference"

    let cluster: BenchPostgresCluster
    let importer: String
    let directory: String
    let reference = PostgresReference(entity: FireballModel.entity, supplied: CopyTextFeed.columns)

    /// The four timed runs.
    struct Runs {
        var importerLoad: PostgresBenchmark.Run
        var referenceLoad: PostgresBenchmark.Run
        var importerReload: PostgresBenchmark.Run
        var referenceReload: PostgresBenchmark.Run
        var changeFraction: Double
    }

    /// Creates both databases and the reference's table, then runs the four timed runs.
    func measure(_ feeds: PostgresBenchFeeds) throws -> Runs {
        try cluster.psql("CREATE DATABASE \(Self.importerDatabase)")
        try cluster.psql("CREATE DATABASE \(Self.referenceDatabase)")
        try cluster.psql(reference.createTable, database: Self.referenceDatabase)
        try settle(vacuum: false)
        let importerLoad = try runImporter("PostgreSQL: importer first load", feed: feeds.json, sync: false)
        try settle(vacuum: false)
        let referenceLoad = try runReference("PostgreSQL: psql reference first load", copyText: feeds.copyText, sync: false)
        try compare(after: "the first load")
        try settle(vacuum: true)
        let importerReload = try runImporter("PostgreSQL: importer re-load --sync", feed: feeds.changedJSON, sync: true)
        try settle(vacuum: false)
        let referenceReload = try runReference("PostgreSQL: psql reference re-load", copyText: feeds.changedCopyText, sync: true)
        try compare(after: "the re-load")
        return Runs(importerLoad: importerLoad, referenceLoad: referenceLoad, importerReload: importerReload,
                    referenceReload: referenceReload, changeFraction: feeds.changeFraction)
    }

    /// Untimed, before a timed run: `VACUUM ANALYZE` of both databases when asked, then a checkpoint.
    private func settle(vacuum: Bool) throws {
        if vacuum {
            try cluster.psql("VACUUM ANALYZE", database: Self.importerDatabase)
            try cluster.psql("VACUUM ANALYZE", database: Self.referenceDatabase)
        }
        try cluster.psql("CHECKPOINT")
    }

    /// `importer run --no-replay [--sync] --verbose --log-format json FEED` into the importer's database.
    private func runImporter(_ label: String, feed: String, sync: Bool) throws -> PostgresBenchmark.Run {
        Benchmark.progress(label)
        let report = directory + "/pg-importer-report.txt"
        let log = directory + "/pg-importer-log.ndjson"
        defer {
            try? FileManager.default.removeItem(atPath: report)
            try? FileManager.default.removeItem(atPath: log)
        }
        let arguments = ["run", "--store", cluster.url(database: Self.importerDatabase), "--no-replay", "--verbose", "--log-format", "json"]
            + (sync ? ["--sync"] : []) + [feed]
        let m = try ProcessRunner.run(importer, arguments, stdout: report, stderr: log)
        guard m.status == 0 else {
            let tail = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
            throw BenchError.failed("importer exited with \(m.status) for \(label):\n\(tail)")
        }
        return PostgresBenchmark.Run(seconds: m.seconds, peakRSSKiB: m.peakRSSKiB, phases: PhaseLog.phases(in: log),
                                     summary: Benchmark.entitySummary(report: report), spawnerPeakKiB: m.spawnerPeakKiB)
    }

    /// psql alone: the reference's script (`PostgresReference.script`) into the reference database.
    private func runReference(_ label: String, copyText: String, sync: Bool) throws -> PostgresBenchmark.Run {
        Benchmark.progress(label)
        let script = directory + "/pg-reference.sql"
        let output = directory + "/pg-reference.out"
        defer {
            for path in [script, output] { try? FileManager.default.removeItem(atPath: path) }
        }
        try reference.script(copyText: copyText, sync: sync).write(toFile: script, atomically: true, encoding: .utf8)
        let arguments = cluster.psqlArguments(database: Self.referenceDatabase) + ["-f", script]
        let m = try ProcessRunner.run(cluster.binaries.path("psql"), arguments, stdout: output, stderr: output + ".err")
        let errors = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: output + ".err")
        guard m.status == 0 else { throw BenchError.failed("psql exited with \(m.status) for \(label): \(errors)") }
        return PostgresBenchmark.Run(seconds: m.seconds, peakRSSKiB: nil)
    }

    /// Both databases hold the same records, or the figures compare different work.
    private func compare(after step: String) throws {
        let importerTable = try cluster.psql(reference.fingerprint, database: Self.importerDatabase)
        let referenceTable = try cluster.psql(reference.fingerprint, database: Self.referenceDatabase)
        guard importerTable == referenceTable else {
            throw BenchError.failed("after \(step), the importer's table and the reference's differ: \(importerTable) against \(referenceTable)")
        }
    }

    /// The server's version and the settings both contenders ran with.
    func serverDescription() throws -> String {
        let names = ["fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers", "max_wal_size",
                     "work_mem", "temp_buffers", "autovacuum", "lc_collate"]
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        let version = try cluster.psql("SHOW server_version")
        let settings = try cluster.psql("SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY array_position(ARRAY[\(list)], name)) FROM pg_settings WHERE name IN (\(list))")
        return "PostgreSQL \(version); \(settings)"
    }
}
