import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// The standing fault campaign: every writing command is killed (SIGKILL) at random points, and
/// each trial must leave the store in the state before the command or the state after it, never
/// between: integrity check passing, every table equal to one of the two states (history, consumer
/// tokens and view rows included), views verifying, and a rerun reaching the new state
/// (`FaultCampaign`; the same proof on PostgreSQL: `PostgresFaultCampaignTests`).
///
/// `make test` runs 5 trials per command (25); `make torture` sets `IMPORTER_FAULT_TRIALS=40`
/// (200). The seed is printed; `IMPORTER_FAULT_SEED` replays a campaign.
@Suite(.serialized) struct FaultCampaignTests {
    static let operations = [
        CampaignOperation(name: "run --sync", arguments: ["run", "--sync", "--max-delete", "100%", "reload.json"]),
        CampaignOperation(name: "history purge", arguments: ["history", "purge", "--before", "2999-01-01", "--force"]),
        CampaignOperation(name: "views rebuild", arguments: ["views", "rebuild", "fireball_by_year"]),
        CampaignOperation(name: "replay", arguments: ["replay"]),
        CampaignOperation(name: "consumers reset", arguments: ["consumers", "reset", "mailer", "--to", "now"]),
    ]

    /// SQLite store files in the campaign's directory.
    struct SQLiteStores: CampaignStores {
        var kind: String { "SQLite" }

        /// A store with history, an external consumer at the beginning, and views one import behind
        /// (so that `replay` and `views rebuild` have work), plus the feed `run --sync` reloads.
        func fixture(in directory: TemporaryDirectory) throws -> String {
            let store = directory.path("fixture.sqlite")
            try FaultCampaign.makeFixture(store, in: directory, setup: [
                ["run", "first.json"], ["consumers", "add", "mailer", "--from", "beginning"],
                ["run", "--sync", "--max-delete", "100%", "--no-replay", "second.json"],
            ])
            return store
        }

        func copy(of fixture: String, named name: String) throws -> String {
            let store = URL(fileURLWithPath: fixture).deletingLastPathComponent().appendingPathComponent("\(name).sqlite").path
            try FileManager.default.copyItem(atPath: fixture, toPath: store)
            return store
        }

        func digest(_ store: String) throws -> String { try StoreDigest.of(store) }

        /// The file passes SQLite's integrity check and the views verify.
        func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws {
            let connection = try SQLiteConnection(path: store, create: false)
            #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"), "\(context)")
            #expect(try importer(["views", "verify", "--store", store]).status == 0, "\(context)")
        }

        func remove(_ store: String) {
            for suffix in ["", "-wal", "-shm", "-writer"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        }
    }

    @Test(arguments: operations)
    func killedAtAnyPointLeavesTheOldOrTheNewState(operation: CampaignOperation) throws {
        try FaultCampaign.run(operation, on: SQLiteStores())
    }
}

