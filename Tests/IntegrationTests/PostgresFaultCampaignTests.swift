import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// The fault campaign (`FaultCampaign`) on PostgreSQL stores, for the same writing commands as on
/// SQLite (views one import behind, so that `replay` and `views rebuild` have work): each killed
/// (SIGKILL) at random points leaves the store's schema in the old state or the new one, its views
/// verifying; the writer lock died with the killed session (a following run gets it within
/// `--wait 10`); and a rerun reaches the new state, up to the numbers identity sequences gave
/// (`PostgresStoreDigest.sequenceColumns`: a rolled-back transaction, the killed one's or the dry
/// run's, leaves a gap; their order and which rows share them must still match).
@Suite(.serialized) struct PostgresFaultCampaignTests {
    /// The same commands as on SQLite.
    static let operations = FaultCampaignTests.operations

    /// Stores in databases of the shared test cluster; a copy is a database made from the
    /// fixture's as a template.
    struct PostgresStores: CampaignStores {
        let cluster: PostgresTestCluster
        var kind: String { "PostgreSQL" }

        func fixture(in directory: TemporaryDirectory) throws -> String {
            let url = try cluster.newStoreURL()
            try FaultCampaign.makeFixture(url, in: directory, setup: [
                ["run", "first.json"], ["consumers", "add", "mailer", "--from", "beginning"],
                ["run", "--sync", "--max-delete", "100%", "--no-replay", "second.json"],
            ])
            return url
        }

        func copy(of fixture: String, named name: String) throws -> String {
            try cluster.newStoreURL(copying: fixture)
        }

        func digest(_ store: String) throws -> String {
            try PostgresStoreDigest.of(store, in: cluster)
        }

        func rerunDigest(_ store: String) throws -> String {
            try PostgresStoreDigest.of(store, in: cluster, renumbering: PostgresStoreDigest.sequenceColumns)
        }

        /// The killed session's writer lock is released: a dry run (which takes the lock and
        /// writes nothing) gets it within 10 seconds; the views verify.
        func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws {
            let next = try importer(["run", "--dry-run", "--no-replay", "--wait", "10", "--store", store, sample("fireball-2024.json")])
            #expect(next.status == 0, "\(context): the next run was blocked: \(next.stderr)")
            #expect(try importer(["views", "verify", "--store", store]).status == 0, "\(context)")
        }

        func remove(_ store: String) {
            try? cluster.dropStore(store)
        }
    }

    @Test(arguments: operations)
    func killedAtAnyPointLeavesTheOldOrTheNewState(operation: CampaignOperation) throws {
        try FaultCampaign.run(operation, on: PostgresStores(cluster: try PostgresTestCluster.start()))
    }
}
