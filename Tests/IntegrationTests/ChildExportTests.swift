import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// `export` follows the graph (issue 44.6): a parent's JSON holds its children under the
/// relationship's name, as they stood at any point of history; CSV writes a file per entity.
@Suite struct ChildExportTests {
    static let model = sample("models/gbfs-station-status.yaml")

    @Test func exportNestsChildrenUnderTheirParent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.nested(directory: directory, store: { directory.path("\($0).sqlite") })
    }

    @Test func exportNestsChildrenUnderTheirParentOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        try Self.nested(directory: directory, store: { _ in try cluster.newStoreURL() })
    }

    /// Each station's `vehicles` in the export equal its rows in the child table; the export as of
    /// the first transaction equals the export of a store that only ever read the first snapshot.
    static func nested(directory: TemporaryDirectory, store name: (String) throws -> String) throws {
        let both = try name("both"), first = try name("first")
        for day in ["1", "2"] { #expect(try importer(["run", "--store", both, "--model", model, sample("gbfs/station-status-\(day).json")]).status == 0) }
        #expect(try importer(["run", "--store", first, "--model", model, sample("gbfs/station-status-1.json")]).status == 0)
        let export = try importer(["export", "--store", both, "--entity", "Station"])
        let stations = try #require(export.json as? [[String: Any]], "\(export.stdout)\(export.stderr)")
        let rows = try importer(["query", "--store", both, "--format", "csv", "SELECT station_id, vehicle_type_id, count FROM station_vehicle ORDER BY station_id, vehicle_type_id"])
            .stdout.split(separator: "\r\n").dropFirst().map(String.init)
        let nested = stations.flatMap { station in
            (station["vehicles"] as? [[String: Any]] ?? []).map { "\"\(station["station_id"] ?? "")\",\"\($0["vehicle_type_id"] ?? "")\",\($0["count"] ?? "")" }
        }
        #expect(stations.count == 9 && nested == rows && rows.count == 13, "\(export.stdout)")
        #expect(stations.allSatisfy { $0["vehicles"] is [Any] }, "a station without children holds an empty list: \(export.stdout)")
        #expect(!export.stdout.contains(#""vehicles":[{"station_id""#), "a child leaves out its parent's key: \(export.stdout)")
        // As of the first transaction: what a store holding only the first snapshot exports.
        let token = try importer(["query", "--store", both, "--raw", "SELECT token FROM importer_transaction WHERE number = 1"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for format in ["json", "ndjson"] {
            let past = try importer(["export", "--store", both, "--entity", "Station", "--as-of", token, "--format", format])
            let then = try importer(["export", "--store", first, "--entity", "Station", "--format", format])
            #expect(past.status == 0 && past.stdout == then.stdout && then.stdout.contains(#""vehicle_type_id":"cargo""#), "\(past.stdout)\(past.stderr)\n\(then.stdout)")
        }
        let flat = try importer(["export", "--store", both, "--entity", "Station", "--flat", "--format", "ndjson"])
        #expect(flat.status == 0 && !flat.stdout.contains("vehicles") && flat.stdout.split(separator: "\n").count == 9, "\(flat.stdout)")
        // CSV: a file per entity, the child's the same as its own export.
        let csv = directory.path("stations.csv")
        #expect(try importer(["export", "--store", both, "--entity", "Station", "--format", "csv", "--output", csv]).status == 0)
        let children = try String(contentsOfFile: directory.path("stations.StationVehicle.csv"), encoding: .utf8)
        #expect(children == (try importer(["export", "--store", both, "--entity", "StationVehicle", "--format", "csv"])).stdout && children.contains(#""C3","cargo""#) == false)
        #expect(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n").count == 10)
    }

    /// Children kept by `nullify` after their station went are not nested under anything: said on
    /// standard error, naming the way to export them.
    @Test func childrenWithoutAParentAreNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let ruled = try directory.write("nullify.yaml", try String(contentsOfFile: Self.model, encoding: .utf8).replacingOccurrences(of: "delete: cascade", with: "delete: nullify"))
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", ruled, sample("gbfs/station-status-1.json")]).status == 0)
        let without = try directory.write("without-b2.json", try String(contentsOfFile: sample("gbfs/station-status-1.json"), encoding: .utf8)
            .replacingOccurrences(of: #""station_id": "B2""#, with: #""station_id": "Z0""#))
        #expect(try importer(["run", "--store", store, "--model", ruled, "--sync", "--max-delete", "100%", without]).status == 0)
        let export = try importer(["export", "--store", store, "--entity", "Station"])
        #expect(export.status == 0 && export.stderr.contains("2 StationVehicle record(s) have no parent among the Station records")
                && export.stderr.contains("--entity StationVehicle"), "\(export.stdout)\(export.stderr)")
        #expect(!export.stdout.contains(#""station_id":"B2""#) && export.stdout.contains(#""station_id":"Z0""#), "\(export.stdout)")
    }

    /// Children of children nest two levels down, each level without its parent's key.
    @Test func childrenOfChildrenNestTwoLevels() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("orders.sqlite")
        let feed = try directory.write("1.json", #"[{"id": "o2", "lines": [{"sku": "a", "qty": 5, "parts": [{"part": "w", "n": 1}]}]}, {"id": "o1", "lines": [{"sku": "b", "qty": 2, "parts": []}, {"sku": "a", "qty": 1, "parts": [{"part": "y", "n": 1}, {"part": "x", "n": 2}]}]}]"#)
        #expect(try importer(["run", "--store", store, "--model", sample("models/orders-lines-parts.yaml"), feed]).status == 0)
        let export = try importer(["export", "--store", store, "--entity", "Order", "--format", "ndjson"])
        #expect(export.stdout == """
            {"order_id":"o1","lines":[{"sku":"a","qty":1,"parts":[{"part":"x","n":2},{"part":"y","n":1}]},{"sku":"b","qty":2,"parts":[]}]}
            {"order_id":"o2","lines":[{"sku":"a","qty":5,"parts":[{"part":"w","n":1}]}]}

            """, "\(export.stdout)\(export.stderr)")
        let lines = try importer(["export", "--store", store, "--entity", "Line", "--format", "ndjson"])
        #expect(lines.stdout.hasPrefix(#"{"order_id":"o1","sku":"a","qty":1,"parts":[{"part":"x","n":2},{"part":"y","n":1}]}"#), "\(lines.stdout)")
    }
}
