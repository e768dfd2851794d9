import ImporterTestSupport
import Foundation
import Testing

/// The stores a fault campaign kills writing commands on (SQLite files, PostgreSQL databases): a
/// fixture, a copy of it per trial, a digest of everything the store holds, and what a kill must
/// leave besides (an intact file, a released lock).
protocol CampaignStores {
    /// The backend, as the campaign's summary line names it.
    var kind: String { get }
    /// A store with history and a consumer, plus the feeds the operations read, in `directory`.
    func fixture(in directory: TemporaryDirectory) throws -> String
    /// A copy of `fixture`, a store of its own named after `name`.
    func copy(of fixture: String, named name: String) throws -> String
    /// Every table's rows, but the columns that record when and where.
    func digest(_ store: String) throws -> String
    /// The digest a rerun after a kill must match the new state by (default: `digest`).
    func rerunDigest(_ store: String) throws -> String
    /// Records an issue for what a kill must not leave behind in `store`, besides its state.
    func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws
    func remove(_ store: String)
}

extension CampaignStores {
    func rerunDigest(_ store: String) throws -> String { try digest(store) }
}

/// Stores of a campaign with a fixture of its own on SQLite: copies, digests, checks and removals
/// are those of the standing campaign's SQLite stores.
protocol SQLiteFixtureStores: CampaignStores {}

extension SQLiteFixtureStores {
    private var sqlite: FaultCampaignTests.SQLiteStores { FaultCampaignTests.SQLiteStores() }
    func copy(of fixture: String, named name: String) throws -> String { try sqlite.copy(of: fixture, named: name) }
    func digest(_ store: String) throws -> String { try sqlite.digest(store) }
    func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws {
        try sqlite.checkAfterKill(store, context: context, in: directory)
    }
    func remove(_ store: String) { sqlite.remove(store) }
}

/// One writing command of a campaign, without its `--store`.
struct CampaignOperation: Sendable, CustomStringConvertible {
    var name: String
    var arguments: [String]
    var description: String { name }
}

/// A fault campaign on one operation: run to its end on a copy of the fixture (timed, giving the
/// new state), then killed with SIGKILL at random points of that duration on fresh copies; each
/// trial must leave the old state or the new one, pass `checkAfterKill`, and, when old, reach the
/// new state on a rerun. `IMPORTER_FAULT_TRIALS` sets the trials (default 5), `IMPORTER_FAULT_SEED`
/// replays a printed seed.
enum FaultCampaign {
    static var trials: Int { ProcessInfo.processInfo.environment["IMPORTER_FAULT_TRIALS"].flatMap(Int.init) ?? 5 }

    enum SetupError: Error { case failed(String) }

    static func run(_ operation: CampaignOperation, on stores: some CampaignStores) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let fixture = try stores.fixture(in: directory)
        defer { stores.remove(fixture) }
        let old = try stores.digest(fixture)
        let reference = try stores.copy(of: fixture, named: "reference")
        defer { stores.remove(reference) }
        let started = Date()
        let completed = try importer(operation.arguments + ["--store", reference], directory: directory.url)
        let duration = Date().timeIntervalSince(started)
        try #require(completed.status == 0, "\(operation): \(completed.stderr)")
        let new = try stores.digest(reference)
        let newForRerun = try stores.rerunDigest(reference)
        try #require(new != old)

        let seed = ProcessInfo.processInfo.environment["IMPORTER_FAULT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        var outcomes = (old: 0, new: 0, landed: 0)
        for trial in 0..<trials {
            // Most of a command's first tenth is process start-up: kill within [0.1, 0.9] of its run.
            var delay = (0.1 + Double(random.next() % 800) / 1000) * duration
            var store = try stores.copy(of: fixture, named: "trial-\(trial)")
            // A command that ended before its kill tested nothing: retried on a fresh copy, sooner.
            for attempt in 1...4 {
                if try kill(operation.arguments + ["--store", store], after: delay, in: directory) {
                    outcomes.landed += 1
                    break
                }
                guard attempt < 4 else { break }
                stores.remove(store)
                store = try stores.copy(of: fixture, named: "trial-\(trial)-\(attempt)")
                delay /= 2
            }
            defer { stores.remove(store) }
            let context = "\(operation), seed \(seed), trial \(trial), killed after \(String(format: "%.3f", delay)) s of \(String(format: "%.3f", duration)) s"
            try stores.checkAfterKill(store, context: context, in: directory)
            let state = try stores.digest(store)
            #expect(state == old || state == new, "\(context): the store is in neither state")
            if state == old {
                outcomes.old += 1
                let rerun = try importer(operation.arguments + ["--store", store], directory: directory.url)
                #expect(rerun.status == 0, "\(context): rerun \(rerun.stderr)")
                #expect(try stores.rerunDigest(store) == newForRerun, "\(context): the rerun did not reach the new state")
            } else if state == new {
                outcomes.new += 1
            }
        }
        print("fault campaign \(stores.kind) \(operation): \(trials) trials (seed \(seed)): \(outcomes.landed) killed while running, "
              + "\(outcomes.old) old state, \(outcomes.new) new state")
        #expect(outcomes.landed == trials, "\(operation), seed \(seed): only \(outcomes.landed) of \(trials) kills landed while the command ran")
    }

    /// Runs `importer arguments` and kills it with SIGKILL after `delay` seconds; returns whether
    /// the kill ended it (false: it had exited by itself).
    static func kill(_ arguments: [String], after delay: Double, in directory: TemporaryDirectory) throws -> Bool {
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
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    /// Writes the campaign's three feeds (~12k records each) and runs `setup` (each with
    /// `--store store`) to make a fixture: history, a consumer at the beginning, a synced reload.
    static func makeFixture(_ store: String, in directory: TemporaryDirectory, setup: [[String]]) throws {
        for (name, offset) in [("first.json", 0), ("second.json", 11), ("reload.json", 5)] {
            try Data(CrashTests.largeFeed(count: 12_000, offset: offset).utf8).write(to: URL(fileURLWithPath: directory.path(name)))
        }
        for arguments in setup {
            let execution = try importer(arguments + ["--store", store], directory: directory.url)
            guard execution.status == 0 else { throw SetupError.failed("\(arguments): \(execution.stderr)") }
        }
    }
}
