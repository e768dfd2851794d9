import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// ECB-style reference rates, each a `<Cube currency rate>` inside the `<Cube time>` of its day:
/// imported as (day, currency) records through `../@time`, counts equal to those worked out here
/// from the two snapshots, a revised rate one update, a new day three inserts.
@Suite struct AncestorFieldTests {
    @Test func ratesAreKeyedOnTheirDayAndCurrency() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.exercise(store: directory.path("ecb.sqlite"))
    }

    @Test func ratesAreKeyedOnTheirDayAndCurrencyOnPostgreSQL() throws {
        try Self.exercise(store: try PostgresTestCluster.start().newStoreURL())
    }

    static func exercise(store: String) throws {
        let model = sample("models/ecb-rates.yaml")
        #expect(try importer(["model", "check", model]).status == 0)
        let first = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("xml/ecb-rates.xml")])
        #expect(first.status == 0, "\(first.stderr)")
        let firstTotals = (first.json as? [String: Any])?["totals"] as? [String: Any]
        #expect(firstTotals?["inserted"] as? Int == 6 && firstTotals?["rejected"] as? Int == 0, "\(first.stdout)")
        // The second snapshot: 2025-12-03 added (3 rates), GBP of 2025-12-02 revised, the rest as before.
        let second = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json", sample("xml/ecb-rates-2.xml")])
        #expect(second.status == 0, "\(second.stderr)")
        let totals = try #require((second.json as? [String: Any])?["totals"] as? [String: Any])
        #expect(totals["inserted"] as? Int == 3 && totals["updated"] as? Int == 1 && totals["deleted"] as? Int == 0
                && totals["unchanged"] as? Int == 5, "\(second.stdout)")
        let rows = try importer(["query", "--store", store, "--format", "csv", "SELECT day, currency, rate FROM rate WHERE currency = 'GBP' ORDER BY day"])
        #expect(rows.stdout.split(separator: "\r\n").dropFirst() == [#""2025-12-01","GBP",0.8774"#, #""2025-12-02","GBP",0.8783"#, #""2025-12-03","GBP",0.8799"#],
                "\(rows.stdout)")
    }

    static let stationModel = """
        entities:
        - name: Station
          table: station
          key: [station_id]
          attributes:
          - {name: station_id, type: text, required: true}
          - {name: bikes, type: integer}
          - {name: reported, type: datetime}
          - {name: ttl, type: integer}
        feeds:
        - name: status
          entity: Station
          format: json
          records: /data/stations
          fields:
          - {attribute: station_id, field: station_id}
          - {attribute: bikes, field: num_bikes_available}
          - {attribute: reported, field: ../../last_updated, format: epoch-s}
          - {attribute: ttl, field: ../../ttl}
        """

    /// A GBFS station status: each station takes the snapshot's `last_updated`, a member of the
    /// document around the records; a member written after the records cannot be read and is
    /// warned of as absent, never stored as null silently.
    @Test func jsonRecordsTakeMembersOfTheObjectsAroundThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try directory.write("gbfs.yaml", Self.stationModel)
        #expect(try importer(["model", "check", model]).status == 0)
        let stations = #"[{"station_id": "s1", "num_bikes_available": 3}, {"station_id": "s2", "num_bikes_available": 0}]"#
        let feed = try directory.write("status.json", #"{"last_updated": 1764576000, "data": {"stations": "# + stations + #"}, "ttl": 60}"#)
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--model", model, "--format", "json", feed])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = (run.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("'../../ttl' is absent from every record") }, "after the records: \(warnings)")
        let rows = try importer(["query", "--store", store, "--format", "csv", "SELECT station_id, bikes, reported FROM station ORDER BY station_id"])
        #expect(rows.stdout.split(separator: "\r\n").dropFirst() == [#""s1",3,"2025-12-01 08:00:00""#, #""s2",0,"2025-12-01 08:00:00""#], "\(rows.stdout)")
        // NDJSON lines have no object around them; a document has only as many as its pointer.
        let ndjson = try directory.write("lines.yaml", Self.stationModel.replacingOccurrences(of: "format: json\n  records: /data/stations", with: "format: ndjson"))
        let lines = try importer(["model", "check", ndjson])
        #expect(lines.status == 78 && lines.stderr.contains("an NDJSON line is the record"), "\(lines.stdout)\(lines.stderr)")
        let far = try directory.write("far.yaml", Self.stationModel.replacingOccurrences(of: "../../ttl", with: "../../../ttl"))
        let climbing = try importer(["model", "check", far])
        #expect(climbing.status == 78 && climbing.stderr.contains("climbs 3 objects out of the records, which have 2 around them"), "\(climbing.stdout)\(climbing.stderr)")
    }
}
