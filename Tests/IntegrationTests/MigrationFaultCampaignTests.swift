import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// The fault campaign on `importer migrate` (issue 45.6): a store of 20,000 fireballs migrated to
/// `SampleData/models/fireball-v2.yaml` with more steps (velocity retyped to text, the entity
/// renamed Bolide in a table of that name, energy_kt made required with a default: an attribute
/// renamed, every record filled, stored and past values converted into a new column, the tables
/// renamed and, on SQLite, the entity table copied) is killed with SIGKILL at random points; each
/// trial leaves the old store or the migrated one, on both backends.
@Suite(.serialized) struct MigrationFaultCampaignTests {
    static let operation = CampaignOperation(name: "migrate (renames, fill, retype, required)", arguments: ["migrate", "--model", "v2.yaml"])

    struct Migration: CampaignFixture {
        var name: String { "migrate" }
        var setup: [[String]] { [["run", "first.json"]] }
        var lockProbe: [String] { ["migrate", "--dry-run", "--model", "v2.yaml"] }

        /// The campaign's model and a 20,000-record feed.
        func writeInputs(in directory: TemporaryDirectory) throws {
            var model = try String(contentsOfFile: sample("models/fireball-v2.yaml"), encoding: .utf8)
            for (old, new) in [
                ("  - name: velocity\n    type: real\n", "  - name: velocity\n    type: text\n"),
                ("- name: Fireball\n  table: fireball\n", "- name: Bolide\n  renamed-from: Fireball\n  table: bolide\n"),
                ("entity: Fireball", "entity: Bolide"),
                ("  - name: energy_kt\n    renamed-from: energy\n    type: real\n", "  - name: energy_kt\n    renamed-from: energy\n    type: real\n    required: true\n    default: 0\n"),
            ] {
                guard model.contains(old) else { throw FaultCampaign.SetupError.failed("fireball-v2.yaml has no '\(old)'") }
                model = model.replacingOccurrences(of: old, with: new)
            }
            try model.write(toFile: directory.path("v2.yaml"), atomically: true, encoding: .utf8)
            try GoldenStoreTests.feed(count: 20_000, reload: false).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
        }
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStore() throws {
        try FaultCampaign.run(Self.operation, on: SQLiteRecipeStores(recipe: Migration()))
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStoreOnPostgreSQL() throws {
        try FaultCampaign.run(Self.operation, on: PostgresRecipeStores(recipe: Migration(), cluster: try PostgresTestCluster.start()))
    }
}
