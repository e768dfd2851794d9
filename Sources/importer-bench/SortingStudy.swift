import Foundation
import ImporterKit

/// What sorting each batch by key (`ImportOptions.sortBatches`, on by default) buys: a first load
/// of a feed into a fresh store through `ImportSession` in this process (reading, mapping, upsert,
/// history: everything `importer run` does but start-up and the report), with each batch of 8192
/// sorted by key before writing and in feed order.
///
/// Two feeds with the same records: the API's order (newest first, so each batch is already in
/// descending key order) and a deterministic shuffle (keys in random order). Each load runs
/// `repeats` times, alternating which setting goes first; the fastest run of each is shown. Timed:
/// `ImportSession.run` (not opening the store).
enum SortingStudy {
    struct Feed {
        var label: String
        var path: String
    }

    static func run(feeds: [Feed], records: Int, storePath: String, repeats: Int) throws -> TextTable {
        var table = TextTable(title: "Sorting each batch by key (in-process ImportSession, first load into a fresh store; best of \(repeats))",
                              headers: ["feed order", "sorted s", "sorted rows/s", "unsorted s", "unsorted rows/s", "sorted speed-up"])
        for feed in feeds {
            var best: [Bool: Double] = [true: .infinity, false: .infinity]
            for round in 0..<repeats {
                for sorted in round % 2 == 0 ? [true, false] : [false, true] {
                    let seconds = try load(feed.path, sorted: sorted, storePath: storePath, records: records)
                    best[sorted] = min(best[sorted] ?? .infinity, seconds)
                }
            }
            guard let sorted = best[true], let unsorted = best[false] else { throw BenchError.failed("no sorting measurement for \(feed.label)") }
            table.add([feed.label, sorted.formatted(2), (Double(records) / sorted).formatted(0),
                       unsorted.formatted(2), (Double(records) / unsorted).formatted(0), (unsorted / sorted).formatted(2) + "×"])
        }
        table.notes = ["speed-up: unsorted seconds / sorted seconds (above 1: sorting is faster)"]
        return table
    }

    /// One first load into a fresh store; returns the seconds of `ImportSession.run`. The store is
    /// closed and deleted afterwards.
    static func load(_ feed: String, sorted: Bool, storePath: String, records: Int) throws -> Double {
        StoreFiles.remove(storePath)
        let seconds = try timedLoad(feed, sorted: sorted, storePath: storePath, records: records)
        StoreFiles.remove(storePath)
        return seconds
    }

    private static func timedLoad(_ feed: String, sorted: Bool, storePath: String, records: Int) throws -> Double {
        let store = try Store(path: storePath)
        var options = ImportOptions(author: "importer-bench", context: "bench")
        options.sortBatches = sorted
        let session = ImportSession(store: store, model: FireballModel.model, options: options)
        let (result, seconds) = try Stopwatch.seconds { try session.run([FeedInput(path: feed, mapping: FireballModel.apiFeed)]) }
        guard result.totals.inserted == records else {
            throw BenchError.failed("\(feed): \(result.totals.inserted) records inserted, expected \(records)")
        }
        return seconds
    }
}
