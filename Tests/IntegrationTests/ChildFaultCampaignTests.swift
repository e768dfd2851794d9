import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// The fault campaign on child entities: a run whose stations' lists are snapshots (children
/// inserted, updated, deleted because a list no longer holds them, and cascaded with a station
/// `--sync` deletes) is killed with SIGKILL at random points; each trial leaves the old state or
/// the new one, parents and children alike (`FaultCampaign`), on both backends.
@Suite(.serialized) struct ChildFaultCampaignTests {
    /// Stations and their vehicles (`SampleData/models/gbfs-station-status.yaml`).
    struct Children: CampaignFixture {
        var name: String { "child entities" }
        var setup: [[String]] { [["run", "--model", "gbfs.yaml", "first.json"]] }
        var lockProbe: [String] { ["run", "--dry-run", "--model", "gbfs.yaml", "first.json"] }

        func writeInputs(in directory: TemporaryDirectory) throws {
            try FileManager.default.copyItem(atPath: sample("models/gbfs-station-status.yaml"), toPath: directory.path("gbfs.yaml"))
            try Self.feed(stations: 4_000, revision: 0).write(toFile: directory.path("first.json"), atomically: true, encoding: .utf8)
            try Self.feed(stations: 3_800, revision: 1).write(toFile: directory.path("reload.json"), atomically: true, encoding: .utf8)
        }

        /// `stations` stations, each listing up to four vehicle types in an order that changes with
        /// `revision`; a revision drops a type from every seventh station and changes every fifth count.
        static func feed(stations: Int, revision: Int) -> String {
            let types = ["bike", "ebike", "cargo", "scooter"]
            let records = (0..<stations).map { index in
                let listed = types.indices.filter { !(revision > 0 && index % 7 == 0 && $0 == 3) }
                let order = listed.indices.map { listed[($0 + index + revision) % listed.count] }
                let vehicles = order.map { type in
                    #"{"vehicle_type_id": "\#(types[type])", "count": \#((index + type + (revision > 0 && index % 5 == 0 ? 1 : 0)) % 9)}"#
                }
                return #"{"station_id": "s\#(index)", "num_bikes_available": \#(index % 20), "vehicle_types_available": [\#(vehicles.joined(separator: ", "))]}"#
            }
            return #"{"data": {"stations": ["# + records.joined(separator: ",\n") + "]}}"
        }
    }

    static let operation = CampaignOperation(name: "run --sync with children",
                                             arguments: ["run", "--model", "gbfs.yaml", "--sync", "--max-delete", "100%", "--max-updated", "100%", "reload.json"])

    @Test func killedAtAnyPointLeavesTheOldOrTheNewParentsAndChildren() throws {
        try FaultCampaign.run(Self.operation, on: SQLiteRecipeStores(recipe: Children()))
    }

    @Test func killedAtAnyPointLeavesTheOldOrTheNewParentsAndChildrenOnPostgreSQL() throws {
        try FaultCampaign.run(Self.operation, on: PostgresRecipeStores(recipe: Children(), cluster: try PostgresTestCluster.start()))
    }
}
