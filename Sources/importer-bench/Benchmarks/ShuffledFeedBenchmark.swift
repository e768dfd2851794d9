import Foundation

/// The same records in the API's order (newest first: sorted by key) and shuffled (`FeedShuffle`),
/// each a first load into a fresh store then a `--sync` re-load of the 10 % changed feed, the two
/// orders alternated `repeats` times (medians).
///
/// Target (issue 24): the shuffled feed within 1.25× of the sorted one's time, peak RSS < 100 MiB.
enum ShuffledFeedBenchmark {
    struct Outcome {
        var sortedFirst: [ProcessRunner.Measurement] = []
        var shuffledFirst: [ProcessRunner.Measurement] = []
        var sortedReload: [ProcessRunner.Measurement] = []
        var shuffledReload: [ProcessRunner.Measurement] = []
    }

    static func run(importer: String, feed: String, changed: String, directory: String, repeats: Int) throws -> Outcome {
        let shuffled = directory + "/shuffled.json", shuffledChanged = directory + "/shuffled-changed.json"
        try FeedShuffle.shuffle(feed, to: shuffled)
        try FeedShuffle.shuffle(changed, to: shuffledChanged, seed: 7)
        defer { for path in [shuffled, shuffledChanged] { try? FileManager.default.removeItem(atPath: path) } }
        let store = directory + "/order.sqlite"
        func run(_ source: String) throws -> ProcessRunner.Measurement {
            let m = try ProcessRunner.run(importer, ["run", "--store", store, "--sync", source])
            guard m.status == 0 else { throw BenchError.failed("importer exited with \(m.status) for \(source)") }
            return m
        }
        var outcome = Outcome()
        for _ in 0 ..< max(repeats, 1) {
            StoreFiles.remove(store)
            outcome.sortedFirst.append(try run(feed))
            outcome.sortedReload.append(try run(changed))
            StoreFiles.remove(store)
            outcome.shuffledFirst.append(try run(shuffled))
            outcome.shuffledReload.append(try run(shuffledChanged))
        }
        StoreFiles.remove(store)
        return outcome
    }

    static func table(_ outcome: Outcome, records: Int) -> BenchTable {
        func median(_ runs: [ProcessRunner.Measurement]) -> Double { runs.map(\.seconds).sorted()[runs.count / 2] }
        func peak(_ runs: [ProcessRunner.Measurement]) -> Int { runs.map(\.peakRSSKiB).max() ?? 0 }
        var table = BenchTable(title: "Feed order: the same \(records) records sorted by key (API order) and shuffled, `run --sync` (medians of \(outcome.sortedFirst.count), alternated)",
                              headers: ["case", "sorted s", "shuffled s", "shuffled ÷ sorted", "peak RSS MiB sorted", "shuffled"])
        var met = true
        for (label, sorted, shuffled) in [("first load", outcome.sortedFirst, outcome.shuffledFirst), ("re-load, 10 % changed", outcome.sortedReload, outcome.shuffledReload)] {
            let ratio = median(shuffled) / median(sorted)
            met = met && ratio <= 1.25 && peak(shuffled) < 100 * 1024
            table.add([label, median(sorted).formatted(2), median(shuffled).formatted(2), ratio.formatted(2), mebibytes(kiB: peak(sorted)), mebibytes(kiB: peak(shuffled))])
        }
        table.notes = [
            "shuffled: each record line dealt to one of 64 files at random, each file shuffled (seeded); sorted externally by importer (--sort-memory 16M).",
            "target: shuffled within 1.25× of sorted, peak RSS < 100 MiB: \(met ? "met" : "NOT met").",
        ]
        return table
    }
}
