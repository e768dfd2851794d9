import Foundation
import ImporterTestSupport
import Testing

/// The property issue 44 asks of child lists, over seeded trials on the GBFS snapshot: any order
/// of the children is no change, and any one child edited is exactly one change of that child.
@Suite struct ChildReorderPropertyTests {
    /// Any order of the children, and of their members, is no change, and any one child edited
    /// is exactly one change of that child (trials over a seeded shuffle of every list of the
    /// first snapshot, with a random vehicle's count edited, then put back).
    @Test func aReorderedListIsNoChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite")
        #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-1.json")]).status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample("gbfs/station-status-1.json")))) as? [String: Any])
        var generator = SplitMix64(seed: 44)
        func shuffled(editing edit: Bool) throws -> String {
            var data = try #require(document["data"] as? [String: Any])
            var stations = try #require(data["stations"] as? [[String: Any]]).shuffled(using: &generator).map { station -> [String: Any] in
                var station = station
                if let list = station["vehicle_types_available"] as? [[String: Any]] { station["vehicle_types_available"] = list.shuffled(using: &generator) }
                return station
            }
            let listing = stations.indices.filter { !((stations[$0]["vehicle_types_available"] as? [[String: Any]]) ?? []).isEmpty }
            if edit, let chosen = listing.randomElement(using: &generator), var list = stations[chosen]["vehicle_types_available"] as? [[String: Any]] {
                let child = Int(generator.next() % UInt64(list.count))
                list[child]["count"] = ((list[child]["count"] as? Int) ?? 0) + 1
                stations[chosen]["vehicle_types_available"] = list
            }
            data["stations"] = stations
            var document = document
            document["data"] = data
            return String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        }
        for trial in 0..<4 {
            for (step, edit, updates) in [("edited", true, 1), ("put back", false, 1), ("as stored", false, 0)] {
                let feed = try directory.write("trial-\(trial)-\(step).json", try shuffled(editing: edit))
                let run = try importer(["run", "--store", store, "--model", ChildEntityTests.model, "--format", "json", feed])
                let vehicles = ChildEntityTests.counts(run, "StationVehicle"), stations = ChildEntityTests.counts(run, "Station")
                #expect(run.status == 0 && [vehicles["inserted"], vehicles["updated"], vehicles["deleted"]] == [0, updates, 0]
                        && [stations["inserted"], stations["updated"], stations["deleted"]] == [0, 0, 0], "trial \(trial), \(step): \(run.stdout)\(run.stderr)")
            }
        }
    }
}
