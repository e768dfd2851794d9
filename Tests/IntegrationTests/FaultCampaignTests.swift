import Foundation
import ImporterKit
import Testing

/// The standing fault campaign: every writing command is killed (SIGKILL) at random points, and
/// each trial must leave the store in the state before the command or the state after it, never
/// between: integrity check passing, every table equal to one of the two states (history, consumer
/// tokens and view rows included), views verifying, and a rerun reaching the new state.
///
/// `make test` runs 5 trials per command (25); `make torture` sets `IMPORTER_FAULT_TRIALS=40`
/// (200). The seed is printed; `IMPORTER_FAULT_SEED` replays a campaign.
@Suite(.serialized) struct FaultCampaignTests {
    struct Operation: Sendable, CustomStringConvertible {
        var name: String
        var arguments: [String]
        var description: String { name }
    }

    static let operations = [
        Operation(name: "run --sync", arguments: ["run", "--sync", "--max-delete", "100%", "reload.json"]),
        Operation(name: "history purge", arguments: ["history", "purge", "--before", "2999-01-01", "--force"]),
        Operation(name: "views rebuild", arguments: ["views", "rebuild", "fireball_by_year"]),
        Operation(name: "replay", arguments: ["replay"]),
        Operation(name: "consumers reset", arguments: ["consumers", "reset", "mailer", "--to", "now"]),
    ]

    static var trials: Int { ProcessInfo.processInfo.environment["IMPORTER_FAULT_TRIALS"].flatMap(Int.init) ?? 5 }

    /// A store with history, an external consumer at the beginning, and views one import behind
    /// (so that `replay` and `views rebuild` have work), plus the feed `run --sync` reloads.
    static func fixture(in directory: TemporaryDirectory) throws -> String {
        let store = directory.path("fixture.sqlite")
        try Data(CrashTests.largeFeed(count: 12_000, offset: 0).utf8).write(to: URL(fileURLWithPath: directory.path("first.json")))
        try Data(CrashTests.largeFeed(count: 12_000, offset: 11).utf8).write(to: URL(fileURLWithPath: directory.path("second.json")))
        try Data(CrashTests.largeFeed(count: 12_000, offset: 5).utf8).write(to: URL(fileURLWithPath: directory.path("reload.json")))
        for arguments in [["run", "first.json"], ["consumers", "add", "mailer", "--from", "beginning"],
                          ["run", "--sync", "--max-delete", "100%", "--no-replay", "second.json"]] {
            let execution = try importer(arguments + ["--store", store], directory: directory.url)
            guard execution.status == 0 else { throw CampaignError.setup("\(arguments): \(execution.stderr)") }
        }
        return store
    }

    enum CampaignError: Error { case setup(String) }

    @Test(arguments: operations)
    func killedAtAnyPointLeavesTheOldOrTheNewState(operation: Operation) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let fixture = try Self.fixture(in: directory)
        let old = try StoreDigest.of(fixture)
        // The reference: the operation run to its end on a copy, timed.
        let reference = directory.path("reference.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: reference)
        let started = Date()
        let completed = try importer(operation.arguments + ["--store", reference], directory: directory.url)
        let duration = Date().timeIntervalSince(started)
        try #require(completed.status == 0, "\(operation): \(completed.stderr)")
        let new = try StoreDigest.of(reference)
        try #require(new != old)

        let seed = ProcessInfo.processInfo.environment["IMPORTER_FAULT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        var outcomes = (old: 0, new: 0)
        for trial in 0..<Self.trials {
            let store = directory.path("trial-\(trial).sqlite")
            try FileManager.default.copyItem(atPath: fixture, toPath: store)
            // Most of a command's first tenth is process start-up: kill within [0.1, 1.1] of its run.
            let delay = (0.1 + Double(random.next() % 1000) / 1000) * duration
            try Self.kill(operation.arguments + ["--store", store], after: delay, in: directory)
            let context = "\(operation), seed \(seed), trial \(trial), killed after \(String(format: "%.3f", delay)) s of \(String(format: "%.3f", duration)) s"
            let connection = try Connection(path: store, create: false)
            #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"), "\(context)")
            let state = try StoreDigest.of(store)
            #expect(state == old || state == new, "\(context): the store is in neither state")
            #expect(try importer(["views", "verify", "--store", store]).status == 0, "\(context)")
            if state == old {
                outcomes.old += 1
                let rerun = try importer(operation.arguments + ["--store", store], directory: directory.url)
                #expect(rerun.status == 0, "\(context): rerun \(rerun.stderr)")
                #expect(try StoreDigest.of(store) == new, "\(context): the rerun did not reach the new state")
            } else if state == new {
                outcomes.new += 1
            }
            for suffix in ["", "-wal", "-shm", "-writer"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        }
        print("fault campaign \(operation): \(Self.trials) trials (seed \(seed)): \(outcomes.old) old state, \(outcomes.new) new state")
    }

    /// Runs `importer arguments` and kills it with SIGKILL after `delay` seconds (if still running).
    static func kill(_ arguments: [String], after delay: Double, in directory: TemporaryDirectory) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A small seeded generator (SplitMix64), so that a campaign can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
