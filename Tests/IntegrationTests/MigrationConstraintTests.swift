import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Constraint steps of `importer migrate` (issue 45.2): a new unique key, an attribute made
/// required or optional. Stored records are checked against the new constraint first: a key value
/// records share, or a null in an attribute made required without a `default:`, refuses the
/// migration (65) naming the records, store untouched; otherwise records keep their ids and history.
@Suite struct MigrationConstraintTests {
    /// Seismic stations keyed by their code, until the feed starts listing stations of another
    /// network under codes it already has: the key becomes (network, code).
    static let model = """
        entities:
        - name: Station
          table: station
          key: [code]
          attributes:
          - name: network
            type: text
            required: true
          - name: code
            type: text
            required: true
          - name: name
            type: text
            required: true
          - name: elevation
            type: integer
        feeds:
        - name: stations
          entity: Station
          format: ndjson
          fields:
          - attribute: network
            field: network
          - attribute: code
            field: code
          - attribute: name
            field: name
          - attribute: elevation
            field: elevation

        """

    static func station(_ network: String, _ code: String, _ name: String, _ elevation: Int?) -> String {
        #"{"network":"\#(network)","code":"\#(code)","name":"\#(name)","elevation":\#(elevation.map(String.init) ?? "null")}"# + "\n"
    }

    static let day1 = station("IU", "ANMO", "Albuquerque", 1820) + station("IU", "COLA", "College Outpost", 200) + station("IU", "HRV", "Harvard", nil)
    static let day2 = station("IU", "ANMO", "Albuquerque", 1820) + station("IU", "COLA", "College Outpost", 205) + station("IU", "HRV", "Harvard", nil)

    @Test(arguments: ["sqlite", "postgres"]) func aNewKeyKeepsIdsAndHistory(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", Self.model)
        let v2 = try directory.write("v2.yaml", Self.model.replacingOccurrences(of: "key: [code]", with: "key: [network, code]"))
        for (day, text) in [Self.day1, Self.day2].enumerated() {
            #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("day\(day + 1).ndjson", text)]).status == 0)
        }
        let ids = try importer(["query", "--store", store, "--format", "csv", "SELECT id, network, code FROM station ORDER BY id"]).stdout
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.status == 0 && plan.stdout.contains("change the key of Station: (code) → (network, code): records keep their ids and history"),
                "\(plan.stdout)\(plan.stderr)")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("Migrated: transaction 3"), "\(migrated.stdout)\(migrated.stderr)")
        #expect(try importer(["query", "--store", store, "--format", "csv", "SELECT id, network, code FROM station ORDER BY id"]).stdout == ids)
        // The record's timeline, under its new key, is the one it had.
        let timeline = try importer(["history", "--store", store, "--key", "IU, COLA", "--format", "ndjson"])
        #expect(timeline.status == 0 && timeline.stdout.contains(#""elevation":{"old":200,"new":205}"#), "\(timeline.stdout)\(timeline.stderr)")
        // A station of another network under a code the store holds is a new record, not an update.
        let day3 = try directory.write("day3.ndjson", Self.day2 + Self.station("II", "ANMO", "Albuquerque II", 1740))
        let run = try importer(["run", "--store", store, "--model", v2, day3])
        #expect(run.status == 0 && run.stdout.contains("Station: 1 inserted, 0 updated"), "\(run.stdout)\(run.stderr)")
        #expect(try importer(["undo", "--store", store, "--last"]).status == 0)
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM station"]).stdout == "3\n")
    }

    /// A key the stored records share is refused, naming the shared values and the records by
    /// their old key; nothing changes.
    @Test(arguments: ["sqlite", "postgres"]) func aKeyRecordsShareIsRefused(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", Self.model.replacingOccurrences(of: "key: [code]", with: "key: [network, code]"))
        let byName = try directory.write("v2.yaml", Self.model.replacingOccurrences(of: "key: [code]", with: "key: [name]"))
        let feed = try directory.write("day.ndjson", Self.day1 + Self.station("II", "ANMO", "Albuquerque", 1740) + Self.station("II", "HRV", "Harvard", 10))
        #expect(try importer(["run", "--store", store, "--model", v1, feed]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let refused = try importer(["migrate", "--store", store, "--model", byName])
        #expect(refused.status == 65, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("change the key of Station: (network, code) → (name): 2 value(s) of the new key are held by more than one stored record: "
            + "(Albuquerque) by (II, ANMO) and (IU, ANMO); (Harvard) by (II, HRV) and (IU, HRV)"), "\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export)
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history)
    }

    /// An attribute made required: stored nulls refuse the migration (naming the records) unless
    /// the model gives a default they take. Made optional again, a null is stored (the table's NOT
    /// NULL goes with it).
    @Test(arguments: ["sqlite", "postgres"]) func requiredAndOptionalAgain(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        // A view counts stations by elevation: the filled nulls move its groups (rebuilt by the migration).
        let model = Self.model + "views:\n- name: by_elevation\n  entity: Station\n  group-by: [elevation]\n  aggregates:\n  - {name: stations, function: count}\n"
        let v1 = try directory.write("v1.yaml", model)
        let elevation = "  - name: elevation\n    type: integer\n"
        let required = try directory.write("v2.yaml", model.replacingOccurrences(of: elevation, with: elevation + "    required: true\n"))
        let filled = try directory.write("v3.yaml", model.replacingOccurrences(of: elevation, with: elevation + "    required: true\n    default: 0\n"))
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("day1.ndjson", Self.day1)]).status == 0)
        let refused = try importer(["migrate", "--store", store, "--model", required])
        #expect(refused.status == 65 && refused.stderr.contains("make Station.elevation required: 1 stored record(s) hold null: (HRV). Give the attribute a default:"),
                "\(refused.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM station WHERE elevation IS NULL"]).stdout == "1\n")
        let migrated = try importer(["migrate", "--store", store, "--model", filled])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT elevation FROM station WHERE code = 'HRV'"]).stdout == "0\n")
        #expect(migrated.stdout.contains("rebuild view by_elevation"), "\(migrated.stdout)")
        let verify = try importer(["views", "verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let null = try importer(["run", "--store", store, "--model", filled, try directory.write("day2.ndjson", Self.day2)])
        #expect(null.status == 65 && null.stderr.contains("elevation"), "a required attribute refuses a null: \(null.stdout)\(null.stderr)")
        // Back to optional: a run may migrate by itself, and the null is stored.
        let optional = try importer(["run", "--store", store, "--model", v1, "--migrate", "--max-updated", "100%", try directory.write("day2.ndjson", Self.day2)])
        #expect(optional.status == 0 && optional.stdout.contains("elevation: 0 → null") && optional.stdout.contains("elevation: 200 → 205"),
                "\(optional.stdout)\(optional.stderr)")
    }

    /// Steps that meet in one migration, on both backends: the key loses an attribute the model
    /// removes (after the new key replaced the old, which SQLite's table copy needs), an indexed
    /// attribute is retyped (its index built again), and the table is renamed in case only.
    @Test(arguments: ["sqlite", "postgres"]) func aKeyAttributeRemovedAnIndexedOneRetypedAndATableRenamed(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let indexed = Self.model.replacingOccurrences(of: "key: [code]", with: "key: [network, code]\n  indexes: [[elevation]]")
        let v2 = indexed.replacingOccurrences(of: "key: [network, code]", with: "key: [code]")
            .replacingOccurrences(of: "  - name: network\n    type: text\n    required: true\n", with: "")
            .replacingOccurrences(of: "  - attribute: network\n    field: network\n", with: "")
            .replacingOccurrences(of: "  - name: elevation\n    type: integer\n", with: "  - name: elevation\n    type: real\n")
            .replacingOccurrences(of: "  table: station\n", with: "  table: Station\n")
        let (first, second) = (try directory.write("v1.yaml", indexed), try directory.write("v2.yaml", v2))
        #expect(try importer(["run", "--store", store, "--model", first, try directory.write("day1.ndjson", Self.day1)]).status == 0)
        let migrated = try importer(["migrate", "--store", store, "--model", second])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let rows = try importer(["query", "--store", store, "--format", "csv", #"SELECT code, elevation FROM "Station" ORDER BY code"#]).stdout
        #expect(rows.split(separator: "\r\n").dropFirst() == [#""ANMO",1820"#, #""COLA",200"#, #""HRV","#], "\(rows)")
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(history.contains(#""network":"IU""#), "the removed key attribute's past values stay in history: \(history)")
        let again = try importer(["run", "--store", store, "--model", second, try directory.write("day2.ndjson", Self.day2)])
        #expect(again.status == 0 && again.stdout.contains("elevation: 200 → 205"), "\(again.stdout)\(again.stderr)")
    }

    /// A key attribute retyped (text codes become integers): the store's unique key follows, the
    /// records keep their ids and history, and codes that would convert to one key (`7`, `07`)
    /// refuse the migration (65), named, store untouched. Both backends.
    @Test(arguments: ["sqlite", "postgres"]) func aKeyAttributeIsRetyped(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", Self.model)
        let v2 = try directory.write("v2.yaml", Self.model.replacingOccurrences(of: "  - name: code\n    type: text\n", with: "  - name: code\n    type: integer\n"))
        let codes = ["7", "12", "30"].map { Self.station("IU", $0, "s" + $0, 100) }.joined()
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("day1.ndjson", codes)]).status == 0)
        let revised = ["7", "12", "30"].map { Self.station("IU", $0, "s" + $0, $0 == "12" ? 120 : 100) }.joined()
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("day2.ndjson", revised)]).status == 0)
        let ids = try importer(["query", "--store", store, "--format", "csv", "SELECT id, code FROM station ORDER BY id"]).stdout
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let ordered = try importer(["query", "--store", store, "--format", "csv", "SELECT code FROM station ORDER BY code"]).stdout
        #expect(ordered.split(separator: "\r\n").dropFirst() == ["7", "12", "30"], "ordered as numbers now: \(ordered)")
        #expect(try importer(["query", "--store", store, "--format", "csv", "SELECT id, code FROM station ORDER BY id"]).stdout == ids.replacingOccurrences(of: "\"", with: "")
            .replacingOccurrences(of: "id,code", with: "\"id\",\"code\""), "ids kept")
        let timeline = try importer(["history", "--store", store, "--key", "12", "--format", "ndjson"]).stdout
        #expect(timeline.contains(#""elevation":{"old":100,"new":120}"#), "\(timeline)")
        let again = try importer(["run", "--store", store, "--model", v2, try directory.write("day3.ndjson", revised + Self.station("IU", "44", "s44", 1))])
        #expect(again.status == 0 && again.stdout.contains("Station: 1 inserted, 0 updated"), "the unique key works under the new type: \(again.stdout)\(again.stderr)")
        let other = backend == "postgres" ? try PostgresTestCluster.start().newStoreURL() : directory.path("other.sqlite")
        let clash = ["7", "07"].map { Self.station("IU", $0, "s" + $0, 1) }.joined()
        #expect(try importer(["run", "--store", other, "--model", v1, try directory.write("clash.ndjson", clash)]).status == 0)
        let refused = try importer(["migrate", "--store", other, "--model", v2])
        #expect(refused.status == 65 && refused.stderr.contains("retype Station.code: text → integer: converted, the key would be shared: (7) by 2 records"),
                "\(refused.stderr)")
        #expect(try importer(["query", "--store", other, "--raw", "SELECT count(*) FROM station WHERE code = '07'"]).stdout == "1\n")
    }
}
