import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// Every writing command against a `run` that holds the store: at once with `--no-wait` it exits
/// 75 naming the run; with `--wait` it succeeds once the run commits.
@Suite struct OverlapTests {
    /// A real `importer run` holding the write lock: it reads its feed from a pipe that stays open
    /// until `finish()`.
    final class HoldingRun {
        let process = Process()
        let input = Pipe()

        init(store: String, directory: TemporaryDirectory) throws {
            process.executableURL = URL(fileURLWithPath: importerBinary)
            process.arguments = ["run", "--store", store, "-"]
            process.currentDirectoryURL = directory.url
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try SignalTests.waitUntilLocked(store)
            // The holder names itself beside the store just after taking the lock: wait for that too.
            for _ in 0 ..< 400 {
                let record = try? String(contentsOfFile: store + "-writer", encoding: .utf8)
                if record?.contains("pid=\(process.processIdentifier)\n") == true { return }
                Thread.sleep(forTimeInterval: 0.01)
            }
            Issue.record("the run never wrote its writer record")
        }

        /// Sends a valid feed and waits for the run to commit.
        func finish() throws -> Int32 {
            try input.fileHandleForWriting.write(contentsOf: Data(CrashTests.largeFeed(count: 100, offset: 3).utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static let writers: [[String]] = [
        ["run", "feed.json"], ["replay"], ["views", "rebuild", "fireball_by_year"], ["history", "purge"], ["rejects", "clear"],
        ["consumers", "add", "other"], ["consumers", "reset", "mailer", "--to", "now"], ["consumers", "remove", "spare"],
        ["history", "--consumer", "mailer", "--ack"], ["undo", "--last"], ["migrate", "--model", sample("models/fireball-v2.yaml")],
    ]

    @Test(arguments: writers)
    func aWriterWaitsForTheRunOrSaysItIsBusy(writer: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try FileManager.default.copyItem(atPath: sample("fireball-2026.json"), toPath: directory.path("feed.json"))
        for setup in [["run", sample("fireball-2024.json")], ["consumers", "add", "mailer", "--from", "beginning"], ["consumers", "add", "spare"]] {
            try #require(try importer(setup + ["--store", store]).status == 0)
        }
        let holder = try HoldingRun(store: store, directory: directory)
        let busy = try importer(writer + ["--store", store, "--no-wait"], directory: directory.url)
        #expect(busy.status == 75, "\(writer): \(busy.stderr)")
        #expect(busy.stderr.contains("is busy: importer run (pid \(holder.process.processIdentifier)"), "\(writer): \(busy.stderr)")

        // A waiting writer succeeds once the holder commits.
        let waiting = Process()
        waiting.executableURL = URL(fileURLWithPath: importerBinary)
        waiting.arguments = writer + ["--store", store, "--wait", "30"]
        waiting.currentDirectoryURL = directory.url
        waiting.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        waiting.standardError = errors
        try waiting.run()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(waiting.isRunning, "\(writer) did not wait")
        #expect(try holder.finish() == 0)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0, "\(writer): \(stderr)")
        // Both committed: the run's transaction is in history.
        let transactions = try SQLiteConnection(path: store, create: false).scalar("SELECT count(*) FROM importer_transaction WHERE source LIKE '%\"-\"%'")
        #expect(transactions == .integer(1))
    }
}
