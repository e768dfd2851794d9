import Foundation
import ImporterKit

/// The PostgreSQL rows of `make bench`: on a throwaway cluster of the bench's own
/// (`BenchPostgresCluster`), a first load of the benchmark's records and a re-load with 5 % of them
/// changed, each imported by `importer run --no-replay` (the re-load with `--sync`; history written,
/// no views) into one database and by the psql reference (`PostgresReference`) into another, with
/// seconds, rows/s, the importer's rows/s relative to the reference's, and the importer's peak RSS;
/// then view replay beside a rebuild on the importer's database (`ViewReplayBenchmark`).
///
/// Goals (the project's issue): importer ≥ 0.7 × the reference's rows/s; peak RSS < 100 MB.
/// Before each timed run, untimed: `VACUUM ANALYZE` of both databases (after the first loads) and a
/// `CHECKPOINT`, so that neither contender pays for the other's dirty pages or hint bits.
enum PostgresBenchmark {
    static let changeFraction = 0.05
    static let ratioGoal = 0.7
    static let rssGoalBytes = 100e6

    /// What the PostgreSQL part came to.
    enum Outcome {
        /// The figures, where the importer's time went, and view replay on the importer's store.
        case measured(BenchTable, phases: BenchTable, views: ViewReplayBenchmark.Outcome)
        /// Not run, and why (no server binaries, or `--no-postgres`).
        case skipped(String)
        /// It ran and failed: the rest of the bench still runs, and the bench then exits non-zero.
        case failed(String)
    }

    /// One timed run of either contender.
    struct Run {
        var seconds: Double
        var peakRSSKiB: Int?
        var phases: [(String, Double)] = []
        var summary = ""
        var spawnerPeakKiB = 0
    }

    /// Writes the feeds, starts the cluster, measures, stops the cluster (whatever happened).
    static func run(_ options: BenchOptions, generator: Generator, baseFeed: String) -> Outcome {
        guard !options.noPostgres else { return .skipped("asked with --no-postgres") }
        guard let binaries = PostgresBinaries.find() else {
            return .skipped("no PostgreSQL server binaries (initdb) under \(PostgresBinaries.root)/*/bin: apt-get install postgresql (make bench does)")
        }
        Benchmark.progress("PostgreSQL: feeds for the psql reference, 5 % changed feed")
        let feeds: PostgresBenchFeeds
        do { feeds = try PostgresBenchFeeds.write(generator, baseFeed: baseFeed, changeFraction: changeFraction, directory: options.directory) } catch {
            return .failed("writing the PostgreSQL feeds: \(error)")
        }
        defer { feeds.remove() }
        Benchmark.progress("PostgreSQL: starting a throwaway cluster (\(binaries.directory))")
        let cluster: BenchPostgresCluster
        do { cluster = try BenchPostgresCluster(binaries: binaries, benchDirectory: options.directory) } catch {
            return .failed("the throwaway PostgreSQL cluster did not start: \(error)")
        }
        defer { cluster.stop() }
        do {
            let session = PostgresBenchSession(cluster: cluster, importer: options.importer, directory: options.directory)
            let runs = try session.measure(feeds)
            let server = try session.serverDescription()
            Benchmark.progress("PostgreSQL: view replay beside a rebuild, on the importer's store")
            let store = try Store.open(cluster.url(database: PostgresBenchSession.importerDatabase))
            let views = try ViewReplayBenchmark.run(store: store, backend: "PostgreSQL", baseFeed: baseFeed, directory: options.directory,
                                                    records: generator.count, repeats: options.repeats)
            return .measured(PostgresBenchTable.figures(runs, records: generator.count, server: server),
                             phases: PostgresBenchTable.phases(runs), views: views)
        } catch {
            return .failed("\(error)\n  last lines of the server log:\n\(cluster.logTail(lines: 15))")
        }
    }
}
