import CSQLite
import Foundation

/// `make bench`: end-to-end import figures beside a raw-SQLite baseline measured in the same run.
enum Benchmark {
    struct Options {
        var records = 1_000_000
        var directory = ".build/bench"
        var importer = ".build/release/importer"
    }

    static func main(_ arguments: [String]) -> Int32 {
        var options = Options()
        var capture = false
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--records": options.records = iterator.next().flatMap(Int.init) ?? options.records
            case "--dir": options.directory = iterator.next() ?? options.directory
            case "--importer": options.importer = iterator.next() ?? options.importer
            case "--capture": capture = true
            case "-h", "--help":
                print("usage: importer-bench [--records N] [--dir DIR] [--importer PATH]")
                return 0
            default:
                FileHandle.standardError.write(Data("importer-bench: unknown argument \(argument)\n".utf8))
                return 64
            }
        }
        if let spill = ProcessInfo.processInfo.environment["BENCH_SPILL"].flatMap(Int32.init) {
            _ = importer_sqlite_config_statement_journal_spill(spill)
        }
        do {
            if capture {
                try CaptureStudy.run(records: options.records, directory: options.directory)
            } else {
                try run(options)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("importer-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ options: Options) throws {
        let n = options.records
        try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
        let base = options.directory + "/fireball-\(n).json"
        let changed = options.directory + "/fireball-\(n)-changed.json"
        let generator = Generator(count: n)
        let rows = generator.rows()
        let size = try Generator.writeFeed(rows, to: base)
        try Generator.writeFeed(generator.rows(changeFraction: 0.1), to: changed)
        print("importer benchmark: \(n) records, feed \(String(format: "%.1f", Double(size) / 1e6)) MB")

        let parse = try ParserStudy.ownScanner(path: base)
        print(String(format: "parse only (own scanner + mapping): %.2f s, %.0f rows/s, %.0f MB/s", parse.seconds, Double(parse.records) / parse.seconds, Double(parse.bytes) / parse.seconds / 1e6))
        let baselineSeconds = try Baseline.run(rows: rows, storePath: options.directory + "/baseline.sqlite")
        let baselineRate = Double(n) / baselineSeconds
        var table = Table(baselineRate: baselineRate)
        table.add("baseline: raw SQLite upsert, no parsing, no history", seconds: baselineSeconds, records: n, rss: nil)

        let store = options.directory + "/importer.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        func importer(_ label: String, _ feed: String, _ extra: [String] = []) throws {
            let m = try ProcessRunner.run(options.importer, ["run", "--store", store] + extra + [feed])
            guard m.status == 0 else { throw BenchError.failed("importer exited with \(m.status) for \(label)") }
            table.add(label, seconds: m.seconds, records: n, rss: m.peakRSSKiB)
        }
        try importer("importer first load (with history)", base)
        try importer("importer identical re-load (no-op)", base)
        try importer("importer re-load, 10 % changed", changed)
        table.print()
    }

    struct Table {
        let baselineRate: Double
        var lines: [(String, Double, Int, Int?)] = []

        mutating func add(_ label: String, seconds: Double, records: Int, rss: Int?) {
            lines.append((label, seconds, records, rss))
        }

        func print() {
            Swift.print(String(repeating: "-", count: 100))
            Swift.print(pad("case", 52) + pad("seconds", 10) + pad("rows/s", 12) + pad("× baseline", 12) + "peak RSS")
            for (label, seconds, records, rss) in lines {
                let rate = Double(records) / seconds
                Swift.print(pad(label, 52) + pad(String(format: "%.2f", seconds), 10) + pad(String(format: "%.0f", rate), 12)
                    + pad(String(format: "%.2f", rate / baselineRate), 12) + (rss.map { String(format: "%.1f MB", Double($0) / 1024) } ?? "-"))
            }
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
    }
}
