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
}
