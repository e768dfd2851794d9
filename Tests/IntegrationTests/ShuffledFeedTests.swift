import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// A feed out of key order, larger than `--sort-memory`, is written to the store in key order
/// through unnamed temporary files in `--temp-dir`: the store ends up holding what importing the
/// feed in its own order holds (records, history, counts; only record and change ids differ), repeated keys
/// included; no temporary file is left, whether the run succeeds or is killed; a full disk there is
/// exit 74 with the store untouched.
@Suite struct ShuffledFeedTests {
    /// Records whose ids are not in key order, past the first batch (passed on before the feed
    /// was seen out of order; the store sorts each batch within itself).
    private func idsOutOfKeyOrder(_ store: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: store, create: false)
        guard case .integer(let count)? = try connection.scalar("""
            SELECT count(*) FROM (SELECT date, lag(date) OVER (ORDER BY id) AS previous FROM fireball WHERE id > 8192) WHERE date < previous
            """) else { return -1 }
        return count
    }

    private func counts(_ run: Execution) -> [String: Int] {
        ((run.json as? [String: Any])?["totals"] as? [String: Int]) ?? [:]
    }

    @Test func aShuffledFeedSortedThroughTemporaryFilesStoresWhatItsOwnOrderWould() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let temporary = directory.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let first = directory.path("first.json"), second = directory.path("second.json")
        try Data(CrashTests.largeFeed(count: 17_000, offset: 0, shuffled: true, repeats: 300).utf8).write(to: URL(fileURLWithPath: first))
        try Data(CrashTests.largeFeed(count: 16_500, offset: 37 * 1000, shuffled: true).utf8).write(to: URL(fileURLWithPath: second))
        let sorted = directory.path("sorted.sqlite"), asRead = directory.path("as-read.sqlite")
        for feed in [first, second] {
            // The second feed revises most energies on purpose: past the mass-update guard's default bound.
            let common = ["run", "--sync", "--max-delete", "100%", "--max-updated", "100%", "--no-replay", "--format", "json", feed]
            let spilled = try importer(common + ["--store", sorted, "--sort-memory", "256K", "--temp-dir", temporary])
            let inMemory = try importer(common + ["--store", asRead, "--sort-memory", "1G"])
            #expect(spilled.status == 0 && inMemory.status == 0, "\(spilled.stderr)\(inMemory.stderr)")
            #expect(counts(spilled) == counts(inMemory) && counts(spilled)["inserted", default: 0] > 0, "\(counts(spilled))")
            #expect(try StoreDigest.withoutIDs(sorted) == StoreDigest.withoutIDs(asRead))
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "no temporary file is left")
            if feed == first {
                #expect(try idsOutOfKeyOrder(sorted) == 0, "the spilled feed was inserted in key order")
                #expect(try idsOutOfKeyOrder(asRead) == 0, "a feed that fits its memory is sorted there")
            }
        }
        #expect(try importer(["views", "verify", "--store", sorted]).status == 0)
    }

    /// `kill -9` while a feed is being sorted leaves the store old or new and no temporary file.
    @Test(arguments: [0.3, 1.0])
    func aRunKilledWhileSortingLeavesNoTemporaryFile(delay: Double) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let temporary = directory.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let store = directory.path("s.sqlite"), feed = directory.path("large.json")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try StoreDigest.of(store)
        try Data(CrashTests.largeFeed(count: 60_000, offset: 0, shuffled: true).utf8).write(to: URL(fileURLWithPath: feed))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["run", "--store", store, "--sort-memory", "256K", "--temp-dir", temporary, feed]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        let killedWhileRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(killedWhileRunning && process.terminationReason == .uncaughtSignal, "the kill landed while the run ran")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        let connection = try SQLiteConnection(path: store, create: false)
        let records = try connection.scalar("SELECT count(*) FROM fireball")
        #expect(try StoreDigest.of(store) == before || records == .integer(60_010))
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }

    /// A size that is not one, or a temporary directory that is not a directory, is a usage error
    /// (64) naming the option, and the store is untouched.
    @Test func badSortOptionsAreUsageErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try StoreDigest.of(store)
        let file = directory.path("plain-file")
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        for (arguments, message) in [(["--sort-memory", "lots"], "--sort-memory: 'lots' is not a size"),
                                     (["--sort-memory", "0"], "--sort-memory: '0' is not a size"),
                                     (["--temp-dir", directory.path("missing")], "--temp-dir: '\(directory.path("missing"))' is not a directory"),
                                     (["--temp-dir", file], "--temp-dir: '\(file)' is not a directory")] {
            let run = try importer(["run", "--store", store] + arguments + [sample("fireball-2026.json")])
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        #expect(try StoreDigest.of(store) == before)
    }
}
