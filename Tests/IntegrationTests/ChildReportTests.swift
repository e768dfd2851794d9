import Foundation
import ImporterTestSupport
import Testing

/// Reports follow the graph (issue 44.6): text lists a child's change under its parent's, by its
/// own key, and the Markdown and HTML tables under its parent's row; JSON names each child
/// change's parent (CSV's key column holds the parent's key first).
@Suite struct ChildReportTests {
    static let model = sample("models/gbfs-station-status.yaml")

    @Test func textListsChildrenUnderTheirParent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite")
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-1.json")]).status == 0)
        let second = try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-2.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let listed = second.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.map(String.init)
        #expect(listed == [
            "  ~ Station B2  num_bikes_available: 5 → 6; last_reported: 2024-11-29 08:46:20 → 2024-11-29 08:56:20",
            "      ~ StationVehicle ebike  count: 1 → 2",
            "  ~ Station C3  num_bikes_available: 1 → 0; last_reported: 2024-11-29 08:46:10 → 2024-11-29 08:56:10",
            "      - StationVehicle cargo  ()",
            "  ~ Station G7  num_bikes_available: 1 → 0; last_reported: 2024-11-29 08:45:50 → 2024-11-29 08:55:50",
            "      - StationVehicle ebike  ()",
            "  + Station E5  num_bikes_available=3 last_reported=2024-11-29 08:55:00",
            "      + StationVehicle bike  count=1",
            "      + StationVehicle ebike  count=2",
        ], "\(second.stdout)")
        // A1's bikes change while the station itself does not: a heading stands for it.
        let day3 = try directory.write("day3.json", try String(contentsOfFile: sample("gbfs/station-status-2.json"), encoding: .utf8)
            .replacingOccurrences(of: #"{"vehicle_type_id": "bike", "count": 3}"#, with: #"{"vehicle_type_id": "bike", "count": 4}"#))
        let run = try importer(["run", "--store", store, "--model", Self.model, day3])
        #expect(run.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") } == ["  · Station A1", "      ~ StationVehicle bike  count: 3 → 4"], "\(run.stdout)")
        let history = try importer(["history", "--store", store, "--after", try token(store, 2)])
        #expect(history.stdout.contains("    · Station A1\n        ~ StationVehicle bike  count: 3 → 4\n"), "\(history.stdout)")
        // JSON: each child change names its parent; a parent's change has no such member.
        let json = try importer(["history", "--store", store, "--format", "json"])
        let changes = ((json.json as? [String: Any])?["transactions"] as? [[String: Any]] ?? []).flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        let named = changes.filter { $0["entity"] as? String == "StationVehicle" }.map { ($0["parent"] as? [String: Any])?["key"] as? [String: String] }
        #expect(named.count == 13 + 5 + 1 && named.allSatisfy { $0?["station_id"] != nil }, "\(json.stdout)")
        #expect(changes.filter { $0["entity"] as? String == "Station" }.allSatisfy { $0["parent"] == nil })
    }

    /// Markdown and HTML tables list each transaction's child changes under their parent's row
    /// (the entity marked `↳`), a parent without a change of its own as a row of its own; the
    /// history report across transactions keeps each transaction's own tree.
    @Test func tablesListChildrenUnderTheirParent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite")
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-1.json")]).status == 0)
        let second = try importer(["run", "--store", store, "--model", Self.model, "--format", "markdown", sample("gbfs/station-status-2.json")])
        let rows = second.stdout.split(separator: "\n").filter { $0.hasPrefix("| 2 |") }.map { $0.split(separator: "|").prefix(3).map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(rows.map { $0[1] + " " + $0[2] } == [
            "Station station_id=B2", "↳ StationVehicle station_id=B2; vehicle_type_id=ebike",
            "Station station_id=C3", "↳ StationVehicle station_id=C3; vehicle_type_id=cargo",
            "Station station_id=G7", "↳ StationVehicle station_id=G7; vehicle_type_id=ebike",
            "Station station_id=E5", "↳ StationVehicle station_id=E5; vehicle_type_id=bike", "↳ StationVehicle station_id=E5; vehicle_type_id=ebike",
        ], "\(second.stdout)")
        let day3 = try directory.write("day3.json", try String(contentsOfFile: sample("gbfs/station-status-2.json"), encoding: .utf8)
            .replacingOccurrences(of: #"{"vehicle_type_id": "bike", "count": 3}"#, with: #"{"vehicle_type_id": "bike", "count": 4}"#))
        #expect(try importer(["run", "--store", store, "--model", Self.model, day3]).status == 0)
        let history = try importer(["history", "--store", store, "--format", "markdown"])
        #expect(history.stdout.contains("| 3 | Station | A1 | · | |\n| 3 | ↳ StationVehicle | station_id=A1; vehicle_type_id=bike | update | count: 3 → 4 |\n"), "\(history.stdout)")
        #expect(history.stdout.contains("| 2 | Station | station_id=B2 | update |"), "transaction 2's tree too: \(history.stdout)")
        let html = try importer(["history", "--store", store, "--format", "html"])
        #expect(html.stdout.contains(#"<tr class="parent"><td class="num" title="token "#) && html.stdout.contains(#"<td>Station</td><td class="key">A1</td><td class="muted">no change</td>"#), "\(html.stdout)")
        #expect(html.stdout.contains(#"<td><span class="child">↳ StationVehicle</span></td><td class="key">station_id=A1, vehicle_type_id=bike</td>"#), "\(html.stdout)")
    }

    /// Metrics per entity: the children's counts are samples of their own, equal to the report's.
    @Test func metricsCountChildrenPerEntity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite"), metrics = directory.path("importer.prom")
        for day in ["1", "2"] {
            let run = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", "--metrics-file", metrics, "--job", "bikes",
                                    sample("gbfs/station-status-\(day).json")])
            #expect(run.status == 0, "\(run.stderr)")
            let samples = MetricsFileTests.samples(try MetricsFileTests.read(metrics))
            try MetricsFileTests.expectRecordsMatch(samples, report: run, job: "bikes")
            let deleted = MetricsFileTests.value(samples, "importer_last_run_records", ["importer_job": "bikes", "entity": "StationVehicle", "outcome": "deleted"])
            #expect(deleted == (day == "1" ? 0 : 2))
        }
        let status = try importer(["status", "--store", store, "--format", "prometheus"])
        #expect(MetricsFileTests.value(MetricsFileTests.samples(status.stdout), "importer_store_records", ["entity": "StationVehicle"]) == 13, "\(status.stdout)")
    }

    private func token(_ store: String, _ number: Int) throws -> String {
        try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = \(number)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
