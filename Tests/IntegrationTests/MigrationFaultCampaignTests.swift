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

    /// Writes the campaign's model and a 20,000-record feed to `directory`.
    static func writeInputs(in directory: TemporaryDirectory) throws {
        let v2 = try String(contentsOfFile: sample("models/fireball-v2.yaml"), encoding: .utf8)
        var model = v2
        for (old, new) in [
            ("  - name: velocity\n    type: real\n", "  - name: velocity\n    type: text\n"),
            ("- name: Fireball\n  table: fireball\n", "- name: Bolide\n  renamed-from: Fireball\n  table: bolide\n"),
            ("entity: Fireball", "entity: Bolide"),
            ("  - name: energy_kt\n    renamed-from: energy\n    type: real\n", "  - name: energy_kt\n    renamed-from: energy\n    type: real\n    required: true\n    default: 0\n"),
        ] {
            guard model.contains(old) else { throw SetupError.failed("fireball-v2.yaml has no '\(old)'") }
            model = model.replacingOccurrences(of: old, with: new)
        }
        try model.write(toFile: directory.path("v2.yaml"), atomically: true, encoding: .utf8)
        try GoldenStoreTests.feed(count: 20_000, reload: false).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
    }

    enum SetupError: Error { case failed(String) }

    struct MigrationStores: SQLiteFixtureStores {
        var kind: String { "SQLite, migrate" }

        func fixture(in directory: TemporaryDirectory) throws -> String {
            try MigrationFaultCampaignTests.writeInputs(in: directory)
            let store = directory.path("fixture.sqlite")
            let setup = try importer(["run", "--store", store, "first.json"], directory: directory.url)
            guard setup.status == 0 else { throw SetupError.failed(setup.stderr) }
            return store
        }
    }

    /// Stores in databases of the shared test cluster, copied from the fixture's as a template;
    /// after a kill, the writer lock is free (a dry-run migration gets it within 10 seconds).
    struct PostgresMigrationStores: CampaignStores {
        let cluster: PostgresTestCluster
        var kind: String { "PostgreSQL, migrate" }

        func fixture(in directory: TemporaryDirectory) throws -> String {
            try MigrationFaultCampaignTests.writeInputs(in: directory)
            let url = try cluster.newStoreURL()
            let setup = try importer(["run", "--store", url, "first.json"], directory: directory.url)
            guard setup.status == 0 else { throw SetupError.failed(setup.stderr) }
            return url
        }

        func copy(of fixture: String, named name: String) throws -> String { try cluster.newStoreURL(copying: fixture) }
        func digest(_ store: String) throws -> String { try PostgresStoreDigest.of(store, in: cluster) }
        func rerunDigest(_ store: String) throws -> String { try PostgresStoreDigest.of(store, in: cluster, renumbering: PostgresStoreDigest.sequenceColumns) }
        func remove(_ store: String) { try? cluster.dropStore(store) }

        func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws {
            let next = try importer(["migrate", "--dry-run", "--wait", "10", "--store", store, "--model", "v2.yaml"], directory: directory.url)
            #expect(next.status == 0, "\(context): the next migration was blocked: \(next.stderr)")
        }
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStore() throws {
        try FaultCampaign.run(Self.operation, on: MigrationStores())
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStoreOnPostgreSQL() throws {
        try FaultCampaign.run(Self.operation, on: PostgresMigrationStores(cluster: try PostgresTestCluster.start()))
    }
}
