import Foundation

/// A windowed sync at size (issue 46.5): a store of the API feed's `records` records re-synced by
/// a feed of its last 30 days (5 % of them revised, 1 % dropped) under `sync: {scope: date}`,
/// beside a full sync of the same feed into a store holding only those 30 days: the same records
/// read and written, the one store large, the other small. Alternated `repeats` times, medians.
///
/// Target: the windowed sync within 1.5× the full sync's time (its cost grows with the window,
/// not with the store).
enum WindowBenchmark {
    struct Outcome {
        var windowed: [ProcessRunner.Measurement] = []
        var full: [ProcessRunner.Measurement] = []
        var records = 0
        var windowRecords = 0
    }

    static let days = 30

    static func run(importer: String, feed: String, records: Int, directory: String, repeats: Int) throws -> Outcome {
        let model = directory + "/window-model.yaml", report = directory + "/window-report.txt"
        let shown = try ProcessRunner.run(importer, ["model", "show"], stdout: model)
        guard shown.status == 0 else { throw BenchError.failed("importer model show exited with \(shown.status)") }
        try (try String(contentsOfFile: model, encoding: .utf8)).replacingOccurrences(of: "- name: fireball-api\n", with: "- name: fireball-api\n  sync: {scope: date}\n")
            .write(toFile: model, atomically: true, encoding: .utf8)
        let (base, changed, count) = try writeWindowFeeds(records: records, directory: directory)
        let large = directory + "/window-large.sqlite", copy = directory + "/window-copy.sqlite", small = directory + "/window-small.sqlite"
        defer {
            for store in [large, copy, small] { StoreFiles.remove(store) }
            for path in [model, report, base, changed] { try? FileManager.default.removeItem(atPath: path) }
        }
        func run(_ store: String, _ arguments: [String]) throws -> ProcessRunner.Measurement {
            let measured = try ProcessRunner.run(importer, ["run", "--store", store, "--model", model] + arguments, stdout: report)
            guard measured.status == 0 else { throw BenchError.failed("importer run exited with \(measured.status): \((try? String(contentsOfFile: report, encoding: .utf8))?.prefix(300) ?? "")") }
            return measured
        }
        StoreFiles.remove(large)
        _ = try run(large, [feed])
        var outcome = Outcome(records: records, windowRecords: count)
        let sync = ["--sync", "--max-updated", "100%", changed]
        for _ in 0 ..< max(repeats, 1) {
            StoreFiles.remove(copy)
            try FileManager.default.copyItem(atPath: large, toPath: copy)
            // The copy's pages on disk before the clock starts: a commit's fsync would write them.
            let descriptor = open(copy, O_RDONLY)
            if descriptor >= 0 { _ = fsync(descriptor); close(descriptor) }
            outcome.windowed.append(try run(copy, sync))
            StoreFiles.remove(small)
            _ = try run(small, [base])
            outcome.full.append(try run(small, sync))
        }
        return outcome
    }

    /// The feed's last `days` days as a feed (newest first), and the same with 5 % of its energies
    /// revised and 1 % of its records dropped; returns their paths and how many records the first holds.
    static func writeWindowFeeds(records: Int, directory: String) throws -> (String, String, Int) {
        let generator = Generator(count: records)
        var cursor = Generator.Cursor()
        for _ in 0..<records { _ = cursor.next(changeFraction: 0) }
        let cutoff = Generator.date(cursor.seconds - days * 86_400)
        var window: [Generator.Row] = []
        try generator.forEachRowNewestFirst { row in if row.date >= cutoff { window.append(row) } }
        let base = directory + "/window-base.json", changed = directory + "/window-changed.json"
        let baseWriter = try FeedWriter(path: base, count: window.count)
        for row in window { try baseWriter.append(row) }
        _ = try baseWriter.finish()
        let kept = window.indices.filter { $0 % 100 != 50 }
        let changedWriter = try FeedWriter(path: changed, count: kept.count)
        for index in kept {
            var row = window[index]
            if index % 20 == 1 { row.energy += 1.3 }
            try changedWriter.append(row)
        }
        _ = try changedWriter.finish()
        return (base, changed, window.count)
    }

    static func table(_ outcome: Outcome) -> BenchTable {
        func median(_ runs: [ProcessRunner.Measurement]) -> Double { runs.map(\.seconds).sorted()[runs.count / 2] }
        func peak(_ runs: [ProcessRunner.Measurement]) -> Int { runs.map(\.peakRSSKiB).max() ?? 0 }
        var table = BenchTable(title: "Windowed sync: the last \(days) days (\(outcome.windowRecords) records) of a \(outcome.records)-record store, beside a full sync of those records (medians of \(outcome.windowed.count), SQLite)",
                               headers: ["case", "s", "÷ full sync", "peak RSS MiB"])
        let full = median(outcome.full), windowed = median(outcome.windowed)
        table.add(["full sync of a store holding the window alone", full.formatted(2), "1.00", mebibytes(kiB: peak(outcome.full))])
        table.add(["windowed sync (sync: {scope: date}) of the \(outcome.records)-record store", windowed.formatted(2), (windowed / full).formatted(2), mebibytes(kiB: peak(outcome.windowed))])
        table.notes = ["target: the windowed sync within 1.5× the full sync of the same records: \(windowed <= 1.5 * full ? "met" : "NOT met")."]
        return table
    }
}
