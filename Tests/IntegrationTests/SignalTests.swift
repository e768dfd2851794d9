import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// SIGINT and SIGTERM roll a run back and exit 130 or 143; a second signal exits at once.
@Suite struct SignalTests {
    /// Starts `run --sync -` on `store`, feeds it half of a large feed, sends `signal` while it
    /// imports, then gives it the rest: the run stops at its next batch. With `second`, it gets
    /// less than a batch (it blocks reading) and a second signal.
    static func interruptedRun(signal: Int32, store: String, directory: TemporaryDirectory, second: Bool = false) throws -> Execution {
        Foundation.signal(SIGPIPE, SIG_IGN)
        let feed = Data(CrashTests.largeFeed(count: 60_000, offset: 0).utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["run", "--store", store, "--sync", "--max-delete", "100%", "-"]
        process.currentDirectoryURL = directory.url
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let half = second ? feed.count / 20 : feed.count / 2
        try input.fileHandleForWriting.write(contentsOf: feed.prefix(half))
        try waitUntilLocked(store)
        if second {
            // The first signal must find the run blocked reading its input, not inside SQLite.
            waitUntilReadingStandardInput(process.processIdentifier)
        } else {
            Thread.sleep(forTimeInterval: 0.3)
        }
        kill(process.processIdentifier, signal)
        if second {
            Thread.sleep(forTimeInterval: 0.2)
            kill(process.processIdentifier, signal)
            // Its input stays open: only the second signal can end it.
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        } else {
            Thread.sleep(forTimeInterval: 0.2)
            try? input.fileHandleForWriting.write(contentsOf: feed.suffix(from: half))
        }
        try? input.fileHandleForWriting.close()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Execution(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Returns once one of the process's threads (the feed reader) waits in `read(0, …)` (Linux:
    /// `/proc/PID/task/TID/syscall` starts with the syscall number 0 and the descriptor 0x0).
    static func waitUntilReadingStandardInput(_ pid: Int32) {
        for _ in 0..<400 {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for thread in threads {
                if let state = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/syscall", encoding: .utf8), state.hasPrefix("0 0x0 ") { return }
            }
            Thread.sleep(forTimeInterval: 0.025)
        }
        Issue.record("the run never blocked reading standard input")
    }

    /// Returns once another process holds the store's write lock (the run's transaction is open).
    static func waitUntilLocked(_ store: String) throws {
        let probe = try SQLiteConnection(path: store, create: false)
        probe.setBusyTimeout(milliseconds: 0)
        for _ in 0..<400 {
            do {
                try probe.execute("BEGIN IMMEDIATE")
                try probe.execute("ROLLBACK")
                Thread.sleep(forTimeInterval: 0.025)
            } catch {
                return
            }
        }
        Issue.record("the run never took the write lock")
    }

    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, 143, "SIGTERM")])
    func aSignalRollsTheRunBack(signal: Int32, status: Int32, name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        let run = try Self.interruptedRun(signal: signal, store: store, directory: directory)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.contains("\(name): stopping and rolling back"))
        #expect(run.stderr.contains("interrupted by \(name): the import was rolled back, nothing was written"))
        #expect(run.stdout.isEmpty)
        let connection = try SQLiteConnection(path: store, create: false)
        #expect(try connection.scalar("SELECT count(*) FROM fireball") == .integer(10))
        #expect(try connection.scalar("SELECT count(*) FROM importer_transaction") == .integer(1))
        _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try sha256(store) == before)
    }

    @Test func aSecondSignalExitsAtOnceAndTheStoreIsSafe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let run = try Self.interruptedRun(signal: SIGINT, store: store, directory: directory, second: true)
        #expect(run.status == 130)
        #expect(run.stderr.contains("SIGINT again: exiting at once"))
        let connection = try SQLiteConnection(path: store, create: false)
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try connection.scalar("SELECT count(*) FROM fireball") == .integer(10))
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        #expect(try importer(["run", "--store", store, sample("fireball-2026.json")]).status == 0)
    }
}
