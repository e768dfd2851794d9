import CSQLite
import Foundation

/// `make bench`: end-to-end import figures beside a raw-SQLite baseline measured in the same run,
/// the feed formats, and view replay beside a rebuild (see `BenchOptions.usage` for the order of
/// work).
///
/// The importer is measured as a subprocess (wall time, `ru_maxrss`) while this process is small:
/// Linux carries the spawner's peak RSS into the child's `ru_maxrss` (`ProcessMemory`), so the
/// feeds are generated streaming and nothing holds the rows until the subprocess runs are done.
enum Benchmark {
    static func main(_ arguments: [String]) -> Int32 {
        do {
            let options = try BenchOptions(arguments)
            if options.help {
                print(BenchOptions.usage)
                return 0
            }
            try run(options)
            return 0
        } catch BenchError.usage(let message) {
            FileHandle.standardError.write(Data("importer-bench: \(message) (see --help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("importer-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ options: BenchOptions) throws {
        let n = options.records
        let directory = options.directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: options.importer) else {
            throw BenchError.usage("no importer binary at \(options.importer) (build it, or pass --importer PATH)")
        }
        let base = directory + "/fireball-\(n).json"
        let changed = directory + "/fireball-\(n)-changed.json"

        // 1. The feeds, streamed to disk: this process holds one chunk of rows at a time.
        progress("writing feeds")
        let generator = Generator(count: n)
        let size = try generator.writeFeed(to: base)
        if options.onlyPostgres { return try onlyPostgres(options, generator: generator, baseFeed: base) }
        if options.onlyURL { return print(try urlFeed(options, feed: base, directory: directory, records: n).render()) }
        if options.onlyViews { return try onlyViews(options, feed: base) }
        if options.onlyChildren { return print(try childEntities(options, directory: directory).render()) }
        if options.onlyMigration || options.onlyWindow { return print(try (options.onlyMigration ? migration(options, feed: base) : window(options, feed: base)).render()) }
        try generator.writeFeed(changeFraction: 0.1, to: changed)
        if options.onlyShuffled { return print(try shuffledFeed(options, feed: base, changed: changed, records: n).render()) }
        print("importer benchmark: \(n) records; feed \((Double(size) / 1e6).formatted(1)) MB (API order, newest first); files in \(directory)")

        // 2. The importer, while this process is still small.
        let store = directory + "/importer.sqlite"
        StoreFiles.remove(store)
        let report = directory + "/importer-report.txt"
        let log = directory + "/importer-log.ndjson"
        var spawnerPeakKiB = 0
        var summaries: [String] = []
        func importer(_ label: String, _ feed: String, into target: String = store, _ extra: [String] = [], kind: Row.Kind) throws -> Row {
            progress(label)
            let arguments = ["run", "--store", target, "--verbose", "--log-format", "json"] + extra + [feed]
            let m = try ProcessRunner.run(options.importer, arguments, stdout: report, stderr: log)
            guard m.status == 0 else { throw BenchError.failed("importer exited with \(m.status) for \(label)") }
            spawnerPeakKiB = max(spawnerPeakKiB, m.spawnerPeakKiB)
            summaries.append("  \(label): " + entitySummary(report: report))
            return Row(label: label, kind: kind, seconds: m.seconds, peakRSSKiB: m.peakRSSKiB, phases: PhaseLog.phases(in: log))
        }
        let historyOnly = directory + "/history-only.sqlite"
        StoreFiles.remove(historyOnly)
        let importerRows = [
            try importer("importer first load, history only (--no-replay)", base, into: historyOnly, ["--no-replay"], kind: .load),
            try importer("importer first load (history + view build)", base, kind: .load),
            try importer("importer identical re-load --sync (no-op)", base, ["--sync"], kind: .reload),
            try importer("importer re-load --sync, 10 % changed", changed, ["--sync"], kind: .reload),
        ]
        try? FileManager.default.removeItem(atPath: report)
        try? FileManager.default.removeItem(atPath: log)
        StoreFiles.remove(historyOnly)
        // 2b. The PostgreSQL store beside psql alone, on a throwaway cluster (still no rows in memory).
        let postgres = PostgresBenchmark.run(options, generator: generator, baseFeed: base)
        progress("feed formats: NDJSON, XML, CSV")
        let formats = try FormatBenchmark.inputs(generator, apiFeed: base, apiBytes: size, directory: directory)
        let formatRuns = try FormatBenchmark.endToEnd(formats, importer: options.importer, directory: directory, records: n)

        let urlTable = try urlFeed(options, feed: base, directory: directory, records: n)
        let orderTable = try shuffledFeed(options, feed: base, changed: changed, records: n)
        let childTable = try childEntities(options, directory: directory)
        let migrationTable = try migration(options, feed: base)
        let windowTable = try window(options, feed: base)

        // 3. Parsing alone; still no rows in memory, so peak RSS growth is the readers' own.
        let formatTable = try FormatBenchmark.table(formats, endToEnd: formatRuns, records: n, repeats: options.repeats)

        // 4. Now the rows in memory: the raw-SQLite baselines.
        let baselines = try baselines(generator, directory: directory)

        // 5. View replay of a 1 % and a 6.5 % delta beside a full rebuild, in-process on a copy of the importer's store.
        progress("view replay benchmark")
        let viewReplay = try ViewReplayBenchmark.run(importerStore: store, baseFeed: base, directory: directory, records: n, repeats: options.repeats)

        print()
        var main = mainTable(baselines + importerRows, records: n, spawnerPeakKiB: spawnerPeakKiB)
        main.notes += ["importer's reports:"] + summaries
        let sections = [main.render(), PhaseLog.table(importerRows).render(), render(postgres), formatTable.render(), urlTable.render(), orderTable.render(), childTable.render(), migrationTable.render(), windowTable.render(), viewReplay.table.render()]
        print(sections.joined(separator: "\n\n"))
        guard viewReplay.passed else { throw BenchError.failed("view replay benchmark: a replayed view differs from its recomputation (see above)") }
        try check(postgres)
    }

    /// `--only-postgres`: the PostgreSQL rows alone.
    static func onlyPostgres(_ options: BenchOptions, generator: Generator, baseFeed: String) throws {
        let postgres = PostgresBenchmark.run(options, generator: generator, baseFeed: baseFeed)
        print(render(postgres))
        try check(postgres)
    }

    /// Throws when the PostgreSQL rows failed or a replayed view differed from its recomputation.
    static func check(_ postgres: PostgresBenchmark.Outcome) throws {
        switch postgres {
        case .failed(let reason): throw BenchError.failed("PostgreSQL rows: \(reason)")
        case .measured(_, _, let views) where !views.passed:
            throw BenchError.failed("PostgreSQL view replay: a replayed view differs from its recomputation (see above)")
        default: break
        }
    }

    /// The URL feed rows: the API feed from its file and over loopback HTTP.
    static func urlFeed(_ options: BenchOptions, feed: String, directory: String, records: Int) throws -> BenchTable {
        progress("URL feed: the file against loopback HTTP")
        let outcome = try URLFeedBenchmark.run(importer: options.importer, feed: feed, directory: directory, records: records, repeats: options.repeats)
        return URLFeedBenchmark.table(outcome, records: records)
    }

    /// The feed-order rows: the API feed sorted and shuffled.
    static func shuffledFeed(_ options: BenchOptions, feed: String, changed: String, records: Int) throws -> BenchTable {
        progress("feed order: sorted against shuffled")
        let outcome = try ShuffledFeedBenchmark.run(importer: options.importer, feed: feed, changed: changed, directory: options.directory, repeats: options.repeats)
        return ShuffledFeedBenchmark.table(outcome, records: records)
    }

    /// The child entity rows: `records` stations with 5 vehicle types each, nested beside flat.
    static func childEntities(_ options: BenchOptions, directory: String) throws -> BenchTable {
        progress("child entities: nested beside flat")
        return ChildrenBenchmark.table(try ChildrenBenchmark.run(importer: options.importer, parents: options.records, directory: directory,
                                                                 repeats: options.repeats))
    }

    /// The migration rows: a first load, then a migration renaming, filling and widening it; on
    /// SQLite, then on a throwaway PostgreSQL cluster when its binaries are installed.
    static func migration(_ options: BenchOptions, feed: String) throws -> BenchTable {
        progress("migration: first load, then migrate (SQLite)")
        let sqlite = try MigrationBenchmark.run(importer: options.importer, feed: feed, records: options.records, directory: options.directory, repeats: options.repeats)
        guard !options.noPostgres else { return MigrationBenchmark.table([sqlite], skipped: "asked with --no-postgres") }
        guard let binaries = PostgresBinaries.find() else { return MigrationBenchmark.table([sqlite], skipped: "no PostgreSQL server binaries") }
        progress("migration: first load, then migrate (PostgreSQL)")
        let cluster: BenchPostgresCluster
        do { cluster = try BenchPostgresCluster(binaries: binaries, benchDirectory: options.directory) } catch {
            return MigrationBenchmark.table([sqlite], skipped: "the throwaway cluster did not start: \(error)")
        }
        defer { cluster.stop() }
        let postgres = try MigrationBenchmark.run(importer: options.importer, feed: feed, records: options.records, directory: options.directory,
                                                  repeats: options.repeats, stores: .postgres(cluster))
        return MigrationBenchmark.table([sqlite, postgres])
    }

    /// The windowed sync rows: the last 30 days re-synced in a large store, beside a full sync.
    static func window(_ options: BenchOptions, feed: String) throws -> BenchTable {
        progress("windowed sync: a large store's last 30 days, beside a full sync of them")
        return WindowBenchmark.table(try WindowBenchmark.run(importer: options.importer, feed: feed, records: options.records,
                                                             directory: options.directory, repeats: max(options.repeats, 3)))
    }

    /// The PostgreSQL tables, or the line saying why there are none.
    static func render(_ postgres: PostgresBenchmark.Outcome) -> String {
        switch postgres {
        case .measured(let figures, let phases, let views): [figures, phases, views.table].map { $0.render() }.joined(separator: "\n\n")
        case .skipped(let reason): "PostgreSQL rows skipped: \(reason)."
        case .failed(let reason): "PostgreSQL rows FAILED (the rest of the bench ran; it exits non-zero): \(reason)"
        }
    }

    /// The first-load baseline, then a re-load of the 10 % changed rows into its store.
    static func baselines(_ generator: Generator, directory: String) throws -> [Row] {
        progress("baselines (rows in memory)")
        let store = directory + "/baseline.sqlite"
        defer { StoreFiles.remove(store) }
        let load = try withRowsInMemory(generator) { rows in try Baseline.run(rows: rows, storePath: store) }
        let reload = try ReloadBaseline.run(rows: generator.rows(changeFraction: 0.1), storePath: store)
        return [
            Row(label: "baseline: first load, raw SQLite upsert, no parsing, no history", kind: .load, seconds: load, peakRSSKiB: nil),
            Row(label: "baseline: re-load 10 % changed, preload + merge, no parsing, no history", kind: .reload,
                seconds: reload.seconds, peakRSSKiB: nil),
        ]
    }

    /// One line of the main table.
    struct Row {
        /// Which baseline the case compares with.
        enum Kind { case load, reload }
        var label: String
        var kind: Kind
        var seconds: Double
        var peakRSSKiB: Int?
        /// The importer's own phase times (`phase times` in its log), in the order it ran them.
        var phases: [(String, Double)] = []
    }

    static func mainTable(_ rows: [Row], records: Int, spawnerPeakKiB: Int) -> BenchTable {
        var table = BenchTable(title: "End to end (importer as a subprocess) beside the raw-SQLite baselines",
                              headers: ["case", "seconds", "rows/s", "× baseline", "peak RSS MiB"])
        func baselineRate(_ kind: Row.Kind) -> Double {
            rows.first { $0.kind == kind }.map { Double(records) / $0.seconds } ?? .nan
        }
        for row in rows {
            let rate = Double(records) / row.seconds
            table.add([row.label, row.seconds.formatted(2), rate.formatted(0), (rate / baselineRate(row.kind)).formatted(2),
                       row.peakRSSKiB.map { mebibytes(kiB: $0) } ?? "-"])
        }
        table.notes = [
            "× baseline: rows/s relative to the baseline of the same kind (first loads: the first-load baseline; re-loads:",
            "  the re-load baseline). Baselines: in-process, rows prepared in memory beforehand, timed from BEGIN to COMMIT",
            "  (the re-load's includes reading every stored row into a hash table); no RSS figure (this process then holds",
            "  the generated rows). Above 1.00, importer (parsing, history and all) is faster than the plain-SQLite way.",
            "peak RSS: the importer's ru_maxrss (wait4).",
            "sanity: importer-bench's own VmHWM when spawning the importer: \(mebibytes(kiB: spawnerPeakKiB)) MiB (largest of the three spawns).",
            "  Linux starts a child's ru_maxrss from its spawner's peak: importer figures above this are the importer's own.",
        ]
        return table
    }

    /// The entity line of an importer text report ("Fireball: N inserted, …").
    static func entitySummary(report: String) -> String {
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("Fireball:") }.map(String.init) ?? "(no Fireball line in the report)"
    }

    /// Builds the rows in memory for `body` and lets them go afterwards.
    static func withRowsInMemory<T>(_ generator: Generator, _ body: ([Generator.Row]) throws -> T) rethrows -> T {
        try body(generator.rows())
    }

    static func progress(_ step: String) {
        FileHandle.standardError.write(Data("importer-bench: \(step)…\n".utf8))
    }

    /// `--only-views`: the importer first loads the feed (views built), then the view replay rows.
    private static func onlyViews(_ options: BenchOptions, feed: String) throws {
        let store = options.directory + "/importer-views.sqlite"
        StoreFiles.remove(store)
        defer { StoreFiles.remove(store) }
        progress("importer first load for the view replay rows")
        let load = try ProcessRunner.run(options.importer, ["run", "--store", store, feed], stdout: "/dev/null", stderr: options.directory + "/importer-log.ndjson")
        guard load.status == 0 else { throw BenchError.failed("importer run exited \(load.status) (see \(options.directory)/importer-log.ndjson)") }
        progress("view replay benchmark")
        let outcome = try ViewReplayBenchmark.run(importerStore: store, baseFeed: feed, directory: options.directory, records: options.records, repeats: options.repeats)
        print(outcome.table.render())
        guard outcome.passed else { throw BenchError.failed("view replay benchmark: a replayed view differs from its recomputation (see above)") }
    }
}
