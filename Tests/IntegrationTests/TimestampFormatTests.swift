import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Datetimes from real feeds' shapes: epoch milliseconds in a GeoJSON-like feed (JSON numbers and
/// numeric strings) and ISO 8601 times in a CSV, stored as UTC text with their milliseconds, grouped
/// by `date(time)` into real dates on SQLite and PostgreSQL.
@Suite struct TimestampFormatTests {
    /// `event → time` (and `updated` when the feed has it) as `export --format json` prints them.
    static func exported(_ store: String, asOf: String? = nil) throws -> [String: [String: String]] {
        let export = try importer(["export", "--store", store, "--format", "json"] + (asOf.map { ["--as-of", $0] } ?? []))
        #expect(export.status == 0, "\(export.stderr)")
        let rows = try #require(export.json as? [[String: Any]], "\(export.stdout)")
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in
            (row["event"] as? String).map { ($0, row.compactMapValues { $0 as? String }.filter { $0.key != "event" }) }
        })
    }

    /// `day → [count, magnitude_max]` of the view.
    static func byDay(_ store: String) throws -> [String: [Double]] {
        let shown = try importer(["views", "show", "quakes_by_day", "--store", store, "--format", "json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let rows = try #require(shown.json as? [[String: Any]], "\(shown.stdout)")
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in
            (row["day"] as? String).map { ($0, [row["count"], row["magnitude_max"]].compactMap { ($0 as? NSNumber)?.doubleValue }) }
        })
    }

    static let geoJSONTimes: [String: [String: String]] = [
        "ak0001": ["time": "2020-03-06 17:42:58.620", "updated": "2020-03-06 17:45:00"],
        "ak0002": ["time": "2020-03-06 23:59:59.999500", "updated": "2020-03-07 00:01:40"],
        "ci0003": ["time": "2020-03-07 00:00:00", "updated": "2020-03-07 00:01:00.001"],
        "nc0004": ["time": "2020-03-07 23:59:59.001", "updated": "2020-03-07 23:59:59.001"],
        "us0005": ["time": "1969-12-31 23:59:59", "updated": "1970-01-01 00:00:00"],
    ]
    static let geoJSONDays: [String: [Double]] = ["1969-12-31": [1, 4.7], "2020-03-06": [2, 2.5], "2020-03-07": [2, 3.1]]

    static let csvTimes: [String: [String: String]] = [
        "a": ["time": "2020-03-06 17:42:58.620"],
        "b": ["time": "2020-03-07 00:59:59.999"],
        "c": ["time": "2020-03-07 00:00:00"],
        "d": ["time": "2020-03-07 00:00:00.500"],
        "e": ["time": "2020-03-07 12:00:00.123456"],
    ]
    static let csvDays: [String: [Double]] = ["2020-03-06": [1, 1.2], "2020-03-07": [4, 3.1]]

    /// `group → count` of a view grouped by an integer (year or month).
    static func counts(_ view: String, _ group: String, _ store: String) throws -> [Int: Int] {
        let shown = try importer(["views", "show", view, "--store", store, "--format", "json"])
        let rows = try #require(shown.json as? [[String: Any]], "\(shown.stdout)\(shown.stderr)")
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row[group] as? Int).flatMap { g in (row["count"] as? Int).map { (g, $0) } } })
    }

    /// Runs the fixture into `store` and checks the stored text, its order, and the views by day
    /// and by `year(time)` or `month(time)`.
    static func importAndCheck(model: String, feed: String, store: String, times: [String: [String: String]], days: [String: [Double]]) throws {
        let run = try importer(["run", "--store", store, "--model", sample("timestamps/\(model)"), sample("timestamps/\(feed)")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Quake: 5 inserted"), "\(run.stdout)")
        #expect(try exported(store) == times)
        // Text order is time order, fractions and whole seconds mixed.
        let ordered = try importer(["query", "SELECT event FROM quake ORDER BY time", "--format", "json", "--store", store])
        let events = (ordered.json as? [[String: Any]])?.compactMap { $0["event"] as? String }
        #expect(events == times.sorted { ($0.value["time"] ?? "") < ($1.value["time"] ?? "") }.map(\.key), "\(ordered.stdout)\(ordered.stderr)")
        #expect(try byDay(store) == days)
        if model == "quakes.yaml" {
            #expect(try counts("quakes_by_year", "year", store) == [1969: 1, 2020: 4])
        } else {
            #expect(try counts("quakes_by_month", "month", store) == [3: 5])
        }
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        // The same feed again changes nothing: the stored text is canonical.
        let again = try importer(["run", "--store", store, "--model", sample("timestamps/\(model)"), sample("timestamps/\(feed)")])
        #expect(again.status == 0 && again.stdout.contains("No changes"), "\(again.stdout)\(again.stderr)")
    }

    @Test func geoJSONEpochMillisecondsBecomeUTCTextWithTheirMilliseconds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.importAndCheck(model: "quakes.yaml", feed: "quakes.geojson", store: directory.path("s.sqlite"), times: Self.geoJSONTimes, days: Self.geoJSONDays)
    }

    @Test func csvISO8601TimesBecomeUTCTextWithTheirFractions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.importAndCheck(model: "quakes-csv.yaml", feed: "quakes.csv", store: directory.path("s.sqlite"), times: Self.csvTimes, days: Self.csvDays)
    }

    @Test func postgreSQLStoresAndGroupsTheSameTimes() throws {
        let cluster = try PostgresTestCluster.start()
        try Self.importAndCheck(model: "quakes.yaml", feed: "quakes.geojson", store: try cluster.newStoreURL(), times: Self.geoJSONTimes, days: Self.geoJSONDays)
        try Self.importAndCheck(model: "quakes-csv.yaml", feed: "quakes.csv", store: try cluster.newStoreURL(), times: Self.csvTimes, days: Self.csvDays)
    }
}

/// Fractional datetimes in keys: key drift pairs a key moved by less than its tolerance, an export
/// as of the first transaction reads the old text back, and `model check` refuses date functions
/// of non-dates and unknown formats.
@Suite struct TimestampKeyTests {
    static let model = """
        entities:
        - name: Reading
          table: reading
          key: [time]
          drift: {attribute: time, tolerance: "1s"}
          attributes:
          - {name: time, type: datetime, required: true}
          - {name: value, type: integer}
          derived:
          - {name: day, type: date, expression: date(time)}
        feeds:
        - name: readings
          entity: Reading
          format: ndjson
          fields:
          - {attribute: time, field: t, format: iso8601}
          - {attribute: value, field: v}
        """

    @Test func keysWithMillisecondsDriftAndReadBackAsOf() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = directory.path("readings.yaml"), store = directory.path("s.sqlite")
        try Self.model.write(toFile: model, atomically: true, encoding: .utf8)
        let first = directory.path("1.ndjson"), second = directory.path("2.ndjson")
        try #"{"t": "2020-03-06T17:42:58.620Z", "v": 1}\#n{"t": "2020-03-06T18:00:00Z", "v": 2}\#n"#.write(toFile: first, atomically: true, encoding: .utf8)
        // 0.78 s later: the same reading re-timed; 1.5 s later: beyond the tolerance.
        try #"{"t": "2020-03-06T18:42:59.4+01:00", "v": 1}\#n{"t": "2020-03-06T18:00:01.500Z", "v": 2}\#n"#.write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let token = try importer(["query", "SELECT token FROM importer_transaction WHERE number = 1", "--raw", "--store", store])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try importer(["run", "--sync", "--store", store, "--model", model, "--format", "json", second])
        #expect(run.status == 0, "\(run.stderr)")
        let totals = (run.json as? [String: Any])?["totals"] as? [String: Any]
        #expect(totals?["rekeyed"] as? Int == 1 && totals?["inserted"] as? Int == 1 && totals?["deleted"] as? Int == 1, "\(run.stdout)")
        func times(_ extra: [String]) throws -> [String] {
            let export = try importer(["export", "--store", store, "--format", "json"] + extra)
            return (export.json as? [[String: Any]])?.compactMap { $0["time"] as? String } ?? []
        }
        #expect(try times([]) == ["2020-03-06 17:42:59.400", "2020-03-06 18:00:01.500"])
        #expect(try times(["--as-of", token]) == ["2020-03-06 17:42:58.620", "2020-03-06 18:00:00"])
    }

    @Test func modelCheckRefusesDateFunctionsOfNonDatesAndUnknownFormats() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = directory.path("m.yaml")
        try Self.model.replacingOccurrences(of: "expression: date(time)", with: "expression: date(value)")
            .replacingOccurrences(of: "format: iso8601", with: "format: epoch-sec")
            .write(toFile: model, atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", model])
        #expect(check.status == 78)
        #expect(check.stderr.contains("derived attribute 'day': date() reads a date or datetime, but attribute 'value' is integer"), "\(check.stderr)")
        #expect(check.stderr.contains("format 'epoch-sec' is unknown: give a named format (epoch-s, epoch-ms, epoch-us, iso8601, rfc2822)"), "\(check.stderr)")
        try Self.model.write(toFile: model, atomically: true, encoding: .utf8)
        let good = try importer(["model", "check", model])
        #expect(good.status == 0, "\(good.stderr)")
    }

    @Test func aTimeThatIsNotOneIsRejectedWithItsReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = directory.path("m.yaml"), feed = directory.path("f.ndjson")
        try Self.model.write(toFile: model, atomically: true, encoding: .utf8)
        try #"{"t": "2019-02-29T10:00:00Z", "v": 1}\#n{"t": "2020-03-06T17:42:58.620Z", "v": 2}\#n"#.write(toFile: feed, atomically: true, encoding: .utf8)
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--model", model, feed])
        #expect(run.status == 65)
        #expect(run.stderr.contains("Reading.time: expected a datetime in the format iso8601: 2019 is not a leap year (February has 28 days) (value: 2019-02-29T10:00:00Z)"), "\(run.stderr)")
    }
}
