/// The command line of `importer-bench`.
struct BenchOptions {
    var records = 1_000_000
    var directory = ".build/bench"
    var importer = ".build/release/importer"
    /// Runs of each in-process case (parser and sorting studies); the fastest is reported.
    var repeats = 2
    /// Run the history capture study (`CaptureStudy`) instead of the benchmark.
    var capture = false
    var help = false

    static let usage = """
        usage: importer-bench [--records N] [--dir DIR] [--importer PATH] [--repeats N] [--capture]

        End-to-end import figures beside a raw-SQLite baseline, then three in-process studies.
        Order of work, so that the importer's peak RSS is its own: the feeds are generated
        streaming (the bench stays small), the importer subprocess runs (first load, identical
        re-load, 10 % changed re-load), the parser study; only then are the rows built in memory
        for the raw-SQLite baseline and the shuffled feed, then the batch sorting study, and last
        the view replay study (on a copy of the importer's store: a 1 % changed run, its replay
        into the views beside a full rebuild of them, target ≤ 5 %).

          --records N      records per feed (default 1000000)
          --dir DIR        where feeds and stores are written (default .build/bench): four
                           feeds of about 75 bytes per record, and the stores
          --importer PATH  the importer binary to measure (default .build/release/importer)
          --repeats N      runs of each in-process parser, sorting, view replay and view
                           rebuild case, fastest shown (default 2); importer subprocess runs
                           are always run once
          --capture        run the history capture study instead (uses --records and --dir;
                           compares per-row triggers, app-side rows, the session extension and
                           importer's chosen design: guard column, preupdate-hook updates,
                           set-based inserts)
          -h, --help       show this help

        Environment: BENCH_SPILL=BYTES sets SQLite's statement journal spill threshold
        (SQLITE_CONFIG_STMTJRNL_SPILL) for the in-process measurements.
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
            case "--capture": capture = true
            case "-h", "--help": help = true
            default: throw BenchError.usage("unknown argument \(argument)")
            }
        }
    }
}
