import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// The fault campaign on `importer migrate` (issue 45.6): a store of 20,000 fireballs migrated to
/// `SampleData/models/fireball-v2.yaml` with more steps (velocity retyped to text, the entity
/// renamed Bolide in a table of that name, energy_kt made required with a default: an attribute
/// renamed, every record filled, stored and past values converted into a new column, the tables
/// renamed and, on SQLite, the entity table copied) is killed with SIGKILL at random points; each
/// trial leaves the old store or the migrated one, on both backends; so does a store of stations
/// and their vehicles whose parent key gains an attribute.
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

    static let parentKey = CampaignOperation(name: "migrate (a parent's wider key taken by its children)", arguments: ["migrate", "--model", "v2.yaml"])

    /// 5,000 stations with two vehicles each, a second run deleting a tenth with their vehicles;
    /// the stations' key gains `system_id`, which every vehicle and every past change of one takes
    /// from its station (SQLite copies both tables for their new keys).
    struct ParentKeyMigration: CampaignFixture {
        var name: String { "migrate a parent's key" }
        var setup: [[String]] { [["run", "--model", "v1.yaml", "first.json"], ["run", "--model", "v1.yaml", "--sync", "--max-delete", "100%", "--max-updated", "100%", "second.json"]] }
        var lockProbe: [String] { ["migrate", "--dry-run", "--model", "v2.yaml"] }

        static func feed(stations: Int, skipping skip: (Int) -> Bool, count: (Int) -> Int) -> String {
            let rows = (0..<stations).filter { !skip($0) }.map { station in
                #"{"station_id": "S\#(station)", "num_bikes_available": \#(count(station)), "vehicle_types_available": [{"vehicle_type_id": "bike", "count": \#(count(station))}, {"vehicle_type_id": "ebike", "count": 1}]}"#
            }
            return #"{"data": {"stations": ["# + rows.joined(separator: ",\n") + "]}}"
        }

        func writeInputs(in directory: TemporaryDirectory) throws {
            try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8).write(toFile: directory.path("v1.yaml"), atomically: true, encoding: .utf8)
            try MigrationRelationshipKeyTests.systems().write(toFile: directory.path("v2.yaml"), atomically: true, encoding: .utf8)
            try Self.feed(stations: 5_000, skipping: { _ in false }, count: { $0 % 7 }).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
            try Self.feed(stations: 5_000, skipping: { $0 % 10 == 3 }, count: { $0 % 5 }).write(toFile: directory.path("second.json"), atomically: true, encoding: .utf8)
        }
    }

    @Test func killedAtAnyPointOfAParentKeyLeavesTheOldOrTheMigratedStore() throws {
        try FaultCampaign.run(Self.parentKey, on: SQLiteRecipeStores(recipe: ParentKeyMigration()))
    }

    @Test func killedAtAnyPointOfAParentKeyLeavesTheOldOrTheMigratedStoreOnPostgreSQL() throws {
        try FaultCampaign.run(Self.parentKey, on: PostgresRecipeStores(recipe: ParentKeyMigration(), cluster: try PostgresTestCluster.start()))
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStore() throws {
        try FaultCampaign.run(Self.operation, on: SQLiteRecipeStores(recipe: Migration()))
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheMigratedStoreOnPostgreSQL() throws {
        try FaultCampaign.run(Self.operation, on: PostgresRecipeStores(recipe: Migration(), cluster: try PostgresTestCluster.start()))
    }
}
