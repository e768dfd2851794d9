import Foundation

/// The PostgreSQL rows as tables: the figures (seconds, rows/s, the importer's rows/s relative to
/// the psql reference's, the importer's peak RSS) with the goals met or missed, and where the
/// importer's time went (its `phase times` log line).
enum PostgresBenchTable {
    /// The figures of both pairs, the goals, what the reference does and the server's settings.
    static func figures(_ runs: PostgresBenchSession.Runs, records: Int, server: String) -> BenchTable {
        let percent = "\(Int((runs.changeFraction * 100).rounded())) %"
        var table = BenchTable(title: "PostgreSQL store: importer (a subprocess) beside psql alone, on the same throwaway server",
                              headers: ["case", "seconds", "rows/s", "× reference", "peak RSS MiB"])
        let pairs = [
            ("first load", "importer run --no-replay, first load (parsing, upsert, history)", runs.importerLoad,
             "reference: psql \\copy + INSERT … ON CONFLICT, first load", runs.referenceLoad),
            ("re-load", "importer run --no-replay --sync, re-load \(percent) changed", runs.importerReload,
             "reference: psql \\copy + upsert + anti-join delete, re-load \(percent) changed", runs.referenceReload),
        ]
        var goals: [String] = []
        var largestRSS = 0
        for (kind, importerLabel, importer, referenceLabel, reference) in pairs {
            let referenceRate = Double(records) / reference.seconds
            let rate = Double(records) / importer.seconds
            let ratio = rate / referenceRate
            table.add([referenceLabel, reference.seconds.formatted(2), referenceRate.formatted(0), "1.00", "-"])
            table.add([importerLabel, importer.seconds.formatted(2), rate.formatted(0), ratio.formatted(2),
                       importer.peakRSSKiB.map { mebibytes(kiB: $0) } ?? "-"])
            goals.append("\(kind) \(ratio.formatted(2)) (\(ratio >= PostgresBenchmark.ratioGoal ? "met" : "NOT met"))")
            largestRSS = max(largestRSS, importer.peakRSSKiB ?? 0)
        }
        let rssMet = Double(largestRSS) * 1024 < PostgresBenchmark.rssGoalBytes
        let spawner = max(runs.importerLoad.spawnerPeakKiB, runs.importerReload.spawnerPeakKiB)
        table.notes = [
            "goals: importer ≥ \(PostgresBenchmark.ratioGoal.formatted(2)) × the reference's rows/s: \(goals.joined(separator: "; "));",
            "  importer peak RSS < 100 MB: largest \(mebibytes(kiB: largestRSS)) MiB (\(rssMet ? "met" : "NOT met")).",
            "reference: psql -f, one transaction: \\copy of the same records as COPY text (converted by the bench, untimed) into a",
            "  temporary table, INSERT … SELECT … ON CONFLICT (date) DO UPDATE … WHERE … IS DISTINCT FROM …, and for the re-load",
            "  DELETE … WHERE NOT EXISTS (anti-join on the staged keys); no JSON parsing, no history. Same table shape as the",
            "  importer's (bigint identity id, the model's columns, UNIQUE (date)). The importer writes history (change rows).",
            "server: \(server).",
            "  Both over TCP on 127.0.0.1; untimed before each run: CHECKPOINT (and VACUUM ANALYZE of both databases before the re-loads).",
            "peak RSS: the importer's ru_maxrss (wait4); importer-bench's own VmHWM when spawning it: \(mebibytes(kiB: spawner)) MiB.",
            "importer's reports:",
            "  first load: \(runs.importerLoad.summary)",
            "  re-load: \(runs.importerReload.summary)",
        ]
        return table
    }

    /// Where the importer's time went in its two PostgreSQL runs.
    static func phases(_ runs: PostgresBenchSession.Runs) -> BenchTable {
        let rows = [
            Benchmark.Row(label: "importer first load (PostgreSQL)", kind: .load, seconds: runs.importerLoad.seconds,
                          peakRSSKiB: runs.importerLoad.peakRSSKiB, phases: runs.importerLoad.phases),
            Benchmark.Row(label: "importer re-load --sync (PostgreSQL)", kind: .reload, seconds: runs.importerReload.seconds,
                          peakRSSKiB: runs.importerReload.peakRSSKiB, phases: runs.importerReload.phases),
        ]
        return PhaseLog.table(rows, title: "Where the importer's PostgreSQL time goes (seconds per phase, from its `phase times` log line)")
    }
}
