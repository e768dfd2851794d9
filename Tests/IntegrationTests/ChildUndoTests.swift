import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Undo of a parent's insert follows the relationship's delete rule (issue 44.3) for children a
/// later run added: cascade deletes them in the undo's transaction, deny refuses (65, nothing
/// written), nullify keeps them.
@Suite struct ChildUndoTests {
    static let model = sample("models/gbfs-station-status.yaml")

    @Test func undoingAParentsInsertFollowsTheDeleteRule() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.rules(directory: directory, store: { directory.path("\($0).sqlite") })
    }

    @Test func undoingAParentsInsertFollowsTheDeleteRuleOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        try Self.rules(directory: directory, store: { _ in try cluster.newStoreURL() })
    }

    static func rules(directory: TemporaryDirectory, store name: (String) throws -> String) throws {
        // Day 3 gives E5 (inserted on day 2) a cargo bike: a child the day-2 transaction did not write.
        let day3 = try directory.write("day3.json", try String(contentsOfFile: sample("gbfs/station-status-2.json"), encoding: .utf8)
            .replacingOccurrences(of: #"{"vehicle_type_id": "bike", "count": 1}"#, with: #"{"vehicle_type_id": "bike", "count": 1}, {"vehicle_type_id": "cargo", "count": 7}"#))
        let text = try String(contentsOfFile: model, encoding: .utf8)
        for rule in ["cascade", "deny", "nullify"] {
            let store = try name(rule)
            let ruled = try directory.write("\(rule).yaml", text.replacingOccurrences(of: "delete: cascade", with: "delete: \(rule)"))
            for feed in [sample("gbfs/station-status-1.json"), sample("gbfs/station-status-2.json"), day3] {
                #expect(try importer(["run", "--store", store, "--model", ruled, feed]).status == 0)
            }
            func e5() throws -> [Substring] {
                try importer(["query", "--store", store, "--format", "csv", "SELECT vehicle_type_id, count FROM station_vehicle WHERE station_id = 'E5' ORDER BY 1"])
                    .stdout.split(separator: "\r\n").dropFirst().map { $0 }
            }
            #expect(try e5() == [#""bike",1"#, #""cargo",7"#, #""ebike",2"#])
            let token = try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = 2"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let undo = try importer(["undo", "--store", store, "--format", "json", token])
            let vehicles = (((undo.json as? [String: Any])?["transactions"] as? [[String: Any]])?.first?["entities"] as? [String: [String: Int]])?["StationVehicle"]
            switch rule {
            case "cascade":
                #expect(undo.status == 0 && vehicles?["deleted"] == 3, "E5's two and the later cargo bike: \(undo.stdout)\(undo.stderr)")
                #expect(try e5().isEmpty)
                let history = try importer(["history", "--store", store, "--format", "ndjson"])
                let cargo = history.stdout.split(separator: "\n").filter { $0.contains(#""transaction":4,"#) && $0.contains(#""type":"delete""#)
                    && $0.contains(#""key":{"station_id":"E5","vehicle_type_id":"cargo"}"#) }
                #expect(cargo.count == 1, "the cargo bike's delete is in the undo's transaction: \(history.stdout)")
            case "deny":
                #expect(undo.status == 65 && undo.stderr.contains("still have 1 StationVehicle record(s)") && undo.stderr.contains("'vehicles'"),
                        "\(undo.stdout)\(undo.stderr)")
                #expect(try e5().count == 3, "nothing written")
            default:
                #expect(undo.status == 0, "\(undo.stderr)")
                #expect(try e5() == [#""cargo",7"#], "kept, detached")
            }
        }
    }
}
