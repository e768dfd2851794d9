import Foundation
import ImporterTestSupport
import Testing

/// The fault campaign on `importer migrate` (issue 45.6): a store of 20,000 fireballs migrated to
/// `SampleData/models/fireball-v2.yaml` with velocity retyped to text (a rename, a required
/// attribute every record takes, every stored and past velocity converted into a new column) is
/// killed with SIGKILL at random points; each trial leaves the old store or the migrated one.
@Suite(.serialized) struct MigrationFaultCampaignTests {
    struct MigrationStores: SQLiteFixtureStores {
        var kind: String { "SQLite, migrate" }

        func fixture(in directory: TemporaryDirectory) throws -> String {
            let v2 = try String(contentsOfFile: sample("models/fireball-v2.yaml"), encoding: .utf8)
            let retyped = v2.replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: text\n")
            guard retyped != v2 else { throw SetupError.failed("fireball-v2.yaml has no real velocity to retype") }
            try retyped.write(toFile: directory.path("v2.yaml"), atomically: true, encoding: .utf8)
            try GoldenStoreTests.feed(count: 20_000, reload: false).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
            let store = directory.path("fixture.sqlite")
            let setup = try importer(["run", "--store", store, "first.json"], directory: directory.url)
            guard setup.status == 0 else { throw SetupError.failed(setup.stderr) }
            return store
        }

        enum SetupError: Error { case failed(String) }
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStore() throws {
        try FaultCampaign.run(CampaignOperation(name: "migrate (rename, fill, retype)", arguments: ["migrate", "--model", "v2.yaml"]), on: MigrationStores())
    }
}
