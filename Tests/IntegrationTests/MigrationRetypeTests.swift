import Foundation
import ImporterTestSupport
import Testing

/// Retyping an attribute (issue 45.2): stored values and past values in history converted by the
/// model's rules, in the migration's one transaction; a value that does not convert refuses the
/// migration (65) naming its record, unless the model says what it becomes (`retype-invalid:`).
@Suite struct MigrationRetypeTests {
    static func velocityAsText(_ text: String) -> String {
        text.replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: text\n")
    }

    /// The acceptance probe's shape: a store of two imports whose velocity arrived as text is
    /// migrated by a model that renames energy, retypes velocity to real, drops altitude and adds a
    /// required source with a default.
    @Test(arguments: ["sqlite", "postgres"]) func renameRetypeRemoveAndFillInOneTransaction(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let (v1, v2) = try MigrationTests.models(in: directory) { text in
            MigrationTests.renamedAndFilled(Self.velocityAsText(text))
                .replacingOccurrences(of: "  - name: velocity\n    type: text\n", with: "  - name: velocity\n    type: real\n")
                .replacingOccurrences(of: "  - name: altitude\n    type: real\n    doc: altitude at peak brightness, km\n", with: "")
                .replacingOccurrences(of: "  - attribute: altitude\n    field: alt\n", with: "")
        }
        let textModel = try directory.write("v1-text.yaml", Self.velocityAsText(try String(contentsOfFile: v1, encoding: .utf8)))
        for feed in ["fireball-2024.json", "fireball-2026.json"] {
            #expect(try importer(["run", "--store", store, "--model", textModel, sample(feed)]).status == 0)
        }
        #expect(try importer(["query", "--store", store, "--raw", "SELECT velocity FROM fireball WHERE date = '2024-09-04 16:39:40'"]).stdout == "+12.8\n")
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.status == 0 && plan.stdout.contains("retype Fireball.velocity: text → real: the values of 14 stored record(s) and their past values in history are converted"),
                "\(plan.stdout)\(plan.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history)
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export, "--plan changes nothing")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("Migrated: transaction 3"), "\(migrated.stdout)\(migrated.stderr)")
        // Stored and past values are numbers now; the past reads under the new name.
        let stored = try importer(["export", "--store", store, "--format", "ndjson"]).stdout
        #expect(stored.contains(#""date":"2024-09-04 16:39:40","energy_kt":4.5"#) && stored.contains(#""velocity":12.8"#) && !stored.contains("altitude"), "\(stored)")
        let past = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(past.contains(#""velocity":16"#) && !past.contains(#""velocity":"+16.0""#) && past.contains(#""energy_kt":{"old":2.1,"new":2.4}"#), "\(past)")
        let types = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM fireball WHERE velocity > 12.7 AND velocity < 12.9"]).stdout
        #expect(types == "1\n", "compared as a number: \(types)")
        let again = try importer(["run", "--store", store, "--model", v2, sample("fireball-2026.json")])
        #expect(again.status == 0 && again.stdout.hasPrefix("No changes."), "the feed's '+12.8' reads as the migrated 12.8: \(again.stdout)\(again.stderr)")
    }

    /// A value that does not convert (18.3 as an integer) refuses the migration, naming its record,
    /// with the store unchanged; `retype-invalid: null` or `default` says what it becomes.
    @Test(arguments: ["sqlite", "postgres"]) func aValueThatDoesNotConvertIsNamed(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let integer = "  - name: velocity\n    type: integer\n"
        let (v1, v2) = try MigrationTests.models(in: directory) { $0.replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: integer) }
        #expect(try importer(["run", "--store", store, "--model", v1, sample("fireball-2024.json")]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let refused = try importer(["migrate", "--store", store, "--model", v2])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("retype Fireball.velocity: real → integer: ") && refused.stderr.contains("(2022-03-11 21:22:46) 18.6 is not a whole number"),
                "\(refused.stderr)")
        #expect(refused.stderr.contains("retype-invalid: null"), "\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export)
        #expect(try importer(["migrate", "--store", store, "--model", v2, "--plan"]).stdout.contains("a value that does not convert refuses the migration"))
        let orDefault = try directory.write("v3.yaml", try String(contentsOfFile: v2, encoding: .utf8)
            .replacingOccurrences(of: integer, with: integer + "    default: -1\n    retype-invalid: default\n"))
        let migrated = try importer(["migrate", "--store", store, "--model", orDefault])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let values = try importer(["query", "--store", store, "--format", "csv", "SELECT velocity, count(*) FROM fireball GROUP BY velocity ORDER BY velocity NULLS LAST"]).stdout
        #expect(values.split(separator: "\r\n").dropFirst() == ["-1,7", "16,1", ",2"], "18.3 and the others take the default, 16.0 converts: \(values)")
    }

    /// The API feed's shape, a record a day from 2024-01-01 with these velocities.
    static func feed(_ velocities: [String]) -> String {
        let rows = velocities.enumerated().map { #"["2024-01-0\#($0.offset + 1) 00:00:00", "1.5", "0.1", "1.0", "N", "2.0", "E", "30.0", "\#($0.element)"]"# }
        return #"{"signature": {"source": "NASA/JPL Fireball Data API", "version": "1.2"}, "count": "\#(velocities.count)", "#
            + #""fields": ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"], "data": [\#(rows.joined(separator: ", "))]}"#
    }

    /// A value the model's default replaces is one the database's own cast refuses (PostgreSQL
    /// tries the cast on every distinct value first, and rolls the failure back): the default is
    /// stored, the others converted, in one migration.
    @Test(arguments: ["sqlite", "postgres"]) func aValueTheCastRefusesTakesTheDefault(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let (real, text) = try MigrationTests.models(in: directory) { Self.velocityAsText($0) }
        #expect(try importer(["run", "--store", store, "--model", text, try directory.write("f.json", Self.feed(["12.5", "fast", "7.5"]))]).status == 0)
        let orDefault = try directory.write("default.yaml", try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: real\n    default: -1\n    retype-invalid: default\n"))
        let migrated = try importer(["migrate", "--store", store, "--model", orDefault])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let values = try importer(["query", "--store", store, "--format", "csv", "SELECT velocity FROM fireball ORDER BY date"]).stdout
        #expect(values.split(separator: "\r\n").dropFirst() == ["12.5", "-1", "7.5"], "\(values)")
        let past = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(past.contains(#""velocity":-1"#) && past.contains(#""velocity":12.5"#), "past values converted alike: \(past)")
    }

    /// Each distinct value is converted once, found again by what the database holds: PostgreSQL's
    /// -0 (equal to 0 there, "-0.0" as text) keeps its sign, as SQLite's store (which keeps a -0 as
    /// 0) keeps its 0; a text longer than an ordinary index entry is found, and becomes null by
    /// `retype-invalid: null` after a refusal that names it.
    @Test(arguments: ["sqlite", "postgres"]) func distinctValuesAreConvertedAsStored(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let long = String(repeating: "fast ", count: 1_000), feed = Self.feed
        let (v1, text) = try MigrationTests.models(in: directory) { Self.velocityAsText($0) }
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("signs.json", feed(["-0.0", "0.0", "12.5"]))]).status == 0)
        #expect(try importer(["migrate", "--store", store, "--model", text]).status == 0)
        let signs = try importer(["query", "--store", store, "--format", "csv", "SELECT velocity FROM fireball ORDER BY date"]).stdout
        let zero = backend == "postgres" ? "\"-0.0\"" : "\"0.0\""
        #expect(signs.split(separator: "\r\n").dropFirst() == [zero[...], "\"0.0\"", "\"12.5\""], "\(signs)")

        let long2 = try directory.write("long.json", feed(["\(long)", "7.5"]).replacingOccurrences(of: "2024-01-0", with: "2025-01-0"))
        #expect(try importer(["run", "--store", store, "--model", text, long2]).status == 0)
        let real = try directory.write("real.yaml", try String(contentsOfFile: v1, encoding: .utf8))
        let refused = try importer(["migrate", "--store", store, "--model", real])
        #expect(refused.status == 65 && refused.stderr.contains("2 stored or past value(s) do not convert: (2025-01-01 00:00:00) 'fast fast")
                && refused.stderr.contains("fast …' does not read as real") && refused.stderr.count < 1_000, "\(refused.stderr)")
        let nulled = try directory.write("nulled.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: real\n    retype-invalid: null\n"))
        let migrated = try importer(["migrate", "--store", store, "--model", nulled])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let values = try importer(["query", "--store", store, "--format", "csv", "SELECT date, velocity FROM fireball WHERE date > '2025' ORDER BY date"]).stdout
        #expect(values.split(separator: "\r\n").dropFirst() == ["\"2025-01-01 00:00:00\",", "\"2025-01-02 00:00:00\",7.5"], "\(values)")
    }

    /// `model suggest --store` (45.5) proposes the change a store's model needs for a feed that
    /// changed: a retype its values need, an optional attribute for a new field; migrated, the feed
    /// imports without a reject and the new field is stored.
    @Test func aChangedFeedIsProposedAsAModelChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("q.sqlite")
        let first = try directory.write("quakes-1.json", #"[{"id": "a", "mag": 2, "place": "x"}, {"id": "b", "mag": 3, "place": "y"}]"#)
        let second = try directory.write("quakes-2.json", #"[{"id": "a", "mag": 2.5, "place": "x", "alert": "green"}, {"id": "b", "mag": 3, "place": "y", "alert": null}]"#)
        let model = try directory.write("v1.yaml", try importer(["model", "suggest", first]).stdout)
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let unchanged = try importer(["model", "suggest", "--store", store, first])
        #expect(unchanged.status == 0 && unchanged.stdout.hasPrefix("# The model maps every field of the feed with types its values fit: no change."), "\(unchanged.stdout)")
        let proposed = try importer(["model", "suggest", "--store", store, second])
        #expect(proposed.status == 0, "\(proposed.stderr)")
        for line in ["# retype Quakes1.mag: integer → real (field 'mag' holds real values)", "# add optional attribute Quakes1.alert (text) for field 'alert'"] {
            #expect(proposed.stdout.contains(line), "\(line): \(proposed.stdout)")
        }
        let v2 = try directory.write("v2.yaml", proposed.stdout)
        #expect(try importer(["migrate", "--store", store, "--model", v2]).status == 0)
        let run = try importer(["run", "--store", store, "--model", v2, "--format", "json", second])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Quakes1")["updated"] == 1 && ChildEntityTests.counts(run, "Quakes1")["rejected"] == 0,
                "\(run.stdout)\(run.stderr)")
        let stored = try importer(["query", "--store", store, "--format", "csv", "SELECT mag, alert FROM quakes_1 ORDER BY source_id"]).stdout
        #expect(stored.split(separator: "\r\n").dropFirst() == ["2.5,\"green\"", "3,"], "the real and the new field stored: \(stored)")
    }
}
