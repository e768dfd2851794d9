/// The command line of `importer-bench`.
struct BenchOptions {
    var records = 1_000_000
    var directory = ".build/bench"
    var importer = ".build/release/importer"
    /// Runs of each in-process case (format parsing, view replay); the fastest is reported.
    var repeats = 2
    /// Skips the PostgreSQL rows (`PostgresBenchmark`).
    var noPostgres = false
    /// Runs only the PostgreSQL rows (after writing the feeds they need).
    var onlyPostgres = false
    var onlyURL = false
    /// Runs only the feed-order rows (`ShuffledFeedBenchmark`).
    var onlyShuffled = false
    /// Runs only the view replay rows (`ViewReplayBenchmark`, on a store the importer first loads).
    var onlyViews = false
    /// Runs only the child entity rows (`ChildrenBenchmark`: nested beside flat).
    var onlyChildren = false
    /// Runs only the migration rows (`MigrationBenchmark`: a first load, then a migration).
    var onlyMigration = false
    /// Runs only the windowed sync rows (`WindowBenchmark`).
    var onlyWindow = false
    var help = false

    static let usage = """
        usage: importer-bench [--records N] [--dir DIR] [--importer PATH] [--repeats N] [--no-postgres | --only-postgres | --only-url | --only-shuffled | --only-views | --only-children | --only-migration | --only-window]

        End-to-end import figures beside a raw-SQLite baseline, the PostgreSQL store beside psql
        alone, the feed formats, and view replay.
        Order of work, so that the importer's peak RSS is its own: the feeds are generated
        streaming (the bench stays small), the importer subprocess runs (first load, identical
        re-load, 10 % changed re-load; then on a throwaway PostgreSQL cluster started under DIR,
        a first load and a 5 % changed re-load by the importer and by psql alone, then view replay
        in-process on the importer's PostgreSQL store, the same two deltas as below; then each feed
        format; then the feed orders: the API feed and a shuffled copy, each a first load and a
        10 % changed re-load; then child entities, a station feed nested and flat, each a first
        load and a 5 % changed re-load of `records` stations × 5 types), parsing alone; only then are the rows built in memory for the raw-SQLite
        baseline, and last view replay (on a copy of the importer's store: a 1 % changed run and
        a 6.5 % re-load, each replayed into the views beside a full rebuild of them, targets ≤ 5 %
        and ≤ 13 %).

          --records N      records per feed (default 1000000)
          --dir DIR        where feeds and stores are written (default .build/bench): four
                           feeds of about 75 bytes per record, and the stores
          --importer PATH  the importer binary to measure (default .build/release/importer)
          --repeats N      runs of each in-process parsing, view replay and view rebuild case,
                           fastest shown (default 2); importer subprocess runs are always run once
          --no-postgres    skip the PostgreSQL rows (skipped anyway, saying so, when no server
                           binaries are installed under /usr/lib/postgresql/*/bin)
          --only-postgres  run only the PostgreSQL rows (importer against psql alone, and view
                           replay on the importer's PostgreSQL store)
          --only-url       run only the URL feed rows (the file against loopback HTTP)
          --only-shuffled  run only the feed-order rows (sorted against shuffled feeds)
          --only-views     run only the view replay rows (on a store the importer first loads)
          --only-children  run only the child entity rows (N stations with 5 vehicle types
                           each, nested beside flat)
          --only-migration run only the migration rows (a first load of N records, then a
                           migration renaming, filling and widening them)
          --only-window    run only the windowed sync rows (the last 30 days of a store of N
                           records re-synced, beside a full sync of those records)
          -h, --help       show this help
        """

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw BenchError.usage("\(flag) needs a value") }
            return value
        }
        func count(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw BenchError.usage("\(flag) needs a positive whole number, not '\(text)'") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--records": records = try count(argument)
            case "--dir": directory = try value(argument)
            case "--importer": importer = try value(argument)
            case "--repeats": repeats = try count(argument)
            case "--no-postgres": noPostgres = true
            case "--only-postgres": onlyPostgres = true
            case "--only-url": onlyURL = true
            case "--only-shuffled": onlyShuffled = true
            case "--only-views": onlyViews = true
            case "--only-children": onlyChildren = true
            case "--only-migration": onlyMigration = true
            case "--only-window": onlyWindow = true
            case "-h", "--help": help = true
            default: throw BenchError.usage("unknown argument \(argument)")
            }
        }
        if noPostgres && onlyPostgres { throw BenchError.usage("--no-postgres and --only-postgres exclude each other") }
    }
}
