import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Stores written before the change tables' own columns became `importer_…` keep working: the
/// SQLite store in Tests/Fixtures/legacy-store was written by the release before (schema 2,
/// `make.sh` says how); read-only commands read it as it is, the first write renames its columns
/// in one transaction (schema 3), and its old history stays readable, replayable and undoable.
/// On PostgreSQL the old layout is made by renaming a new store's columns back (schema 1).
@Suite struct LegacyStoreTests {
    static let fixture = repositoryRoot.appendingPathComponent("Tests/Fixtures/legacy-store")

    /// The history of the fixture's two runs, as (type, key, changed attributes with old → new).
    static let recordedHistory = [
        "insert A", "insert B", "insert C", "insert D",
        "update B magnitude 5.1→5.4", "update D kind quake→blast", "delete C", "insert E",
    ]

    static let day3 = "code,place,mag,kind\nB,Beta,5.4,quake\nD,Delta,6.5,blast\nE,Epsilon,2.9,quake\nF,Phi,4.0,blast\n"

    @Test func aSQLiteStoreOfTheLastReleaseIsReadThenMigratedOnItsFirstWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for name in ["store.sqlite", "model.yaml"] {
            try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent(name).path, toPath: directory.path(name))
        }
        let store = directory.path("store.sqlite")
        #expect(try schemaVersion(store) == 2)
        // Read as it is: history, report, views and status never write.
        #expect(try Self.history(store) == Self.recordedHistory)
        #expect(try importer(["report", "--store", store, "--report", "markdown"]).status == 0)
        #expect(try Self.viewRows(store) == Self.viewAfterDay2)
        #expect(try schemaVersion(store) == 2)
        #expect(try changeColumns(store).contains("old.magnitude"))

        try Self.writeAndUndo(store: store, in: directory)
        #expect(try schemaVersion(store) == 4)
        #expect(try importer(["query", "SELECT count(*) FROM importer_source", "--raw", "--store", store]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "migrated to hold URL feeds' state")
        let columns = try changeColumns(store)
        #expect(columns.prefix(5) == ["importer_change_id", "importer_transaction_number", "importer_record_id", "importer_type", "importer_changed"])
        #expect(columns.contains("importer_old.magnitude") && !columns.contains("old.magnitude"))
    }

    @Test func aPostgreSQLStoreOfTheLastReleaseIsReadThenMigratedOnItsFirstWrite() throws {
        let cluster = try PostgresTestCluster.start()
        let store = try cluster.newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent("model.yaml").path, toPath: directory.path("model.yaml"))
        for day in ["day1.csv", "day2.csv"] {
            try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent(day).path, toPath: directory.path(day))
            let run = try importer(["run", "--store", store, "--model", "model.yaml", "--author", day] + (day == "day2.csv" ? ["--sync"] : []) + [day],
                                   directory: directory.url)
            try #require(run.status == 0, "\(run.stderr)")
        }
        // The layout the release before wrote: its column names, no importer_source, schema version 1.
        let database = PostgresTestCluster.database(of: store)
        let renames = [("importer_change_id", "change_id"), ("importer_transaction_number", "transaction_number"),
                       ("importer_record_id", "record_id"), ("importer_type", "type"), ("importer_changed", "changed")]
            + ["code", "place", "magnitude", "kind"].map { ("importer_old.\($0)", "old.\($0)") }
        _ = try cluster.psql(renames.map { #"ALTER TABLE importer_change_quake RENAME COLUMN "\#($0.0)" TO "\#($0.1)""# }
                             + ["DROP TABLE importer_source", #"UPDATE importer_metadata SET "value" = '1' WHERE "key" = 'schema_version'"#],
                             database: database)
        #expect(try Self.history(store) == Self.recordedHistory)
        #expect(try Self.viewRows(store) == Self.viewAfterDay2)
        #expect(try importer(["status", "--store", store, "--format", "json"]).json.flatMap { ($0 as? [String: Any])?["schema_version"] as? Int } == 1)

        try Self.writeAndUndo(store: store, in: directory)
        #expect(try importer(["status", "--store", store, "--format", "json"]).json.flatMap { ($0 as? [String: Any])?["schema_version"] as? Int } == 3)
        #expect(try cluster.psql("SELECT count(*) FROM importer_source", database: database).trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "migrated to hold URL feeds' state")
        let columns = try cluster.psql("""
            SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = 'importer_change_quake'
            """, database: database)
        #expect(columns.hasPrefix("importer_change_id,importer_transaction_number,importer_record_id,importer_type,importer_changed,"), "\(columns)")
    }

    static let viewAfterDay2: [[String: String]] = [
        ["kind": "blast", "quakes": "1", "magnitude_avg": "6", "magnitude_max": "6"],
        ["kind": "quake", "quakes": "3", "magnitude_avg": "4.26667", "magnitude_max": "5.4"],
    ]

    /// A `--sync` run on the old store (D updated, A gone, F new), views replayed and verified,
    /// then undone: the store and the view are back as the release left them, old history intact.
    static func writeAndUndo(store: String, in directory: TemporaryDirectory) throws {
        try day3.write(toFile: directory.path("day3.csv"), atomically: true, encoding: .utf8)
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--sync", "--format", "json", "day3.csv"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try history(store) == recordedHistory + ["update D magnitude 6→6.5", "delete A", "insert F"])
        #expect(try viewRows(store) == [
            ["kind": "blast", "quakes": "2", "magnitude_avg": "5.25", "magnitude_max": "6.5"],
            ["kind": "quake", "quakes": "2", "magnitude_avg": "4.15", "magnitude_max": "5.4"],
        ])
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let undo = try importer(["undo", "--last", "--store", store])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try history(store).prefix(recordedHistory.count) == recordedHistory[...])
        #expect(try viewRows(store) == viewAfterDay2)
        let again = try importer(["run", "--store", store, "--model", "model.yaml", "--sync", "--format", "json", "day3.csv"], directory: directory.url)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// The release before's store, which kept no model version, migrated by this one (issue 45):
    /// a rename and a required attribute with a default in one transaction; the old changes read
    /// under the new name, the delete from before undone takes the default, the views verify.
    @Test func aSQLiteStoreOfTheLastReleaseIsMigrated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for name in ["store.sqlite", "model.yaml", "day2.csv"] {
            try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent(name).path, toPath: directory.path(name))
        }
        let store = directory.path("store.sqlite")
        let v2 = try directory.write("v2.yaml", try String(contentsOfFile: directory.path("model.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "  - {name: magnitude, type: real}", with: "  - {name: mag, renamed-from: magnitude, type: real}\n  - {name: source, type: text, required: true, default: legacy}")
            .replacingOccurrences(of: "case when magnitude >= 5", with: "case when mag >= 5")
            .replacingOccurrences(of: "{attribute: magnitude, field: mag}", with: "{attribute: mag, field: mag}")
            .replacingOccurrences(of: "attribute: magnitude}", with: "attribute: mag}"))
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("Migrated: transaction 3"), "\(migrated.stdout)\(migrated.stderr)")
        #expect(try Self.history(store) == Self.recordedHistory.map { $0.replacingOccurrences(of: "magnitude", with: "mag") })
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let rerun = try importer(["run", "--store", store, "--model", v2, "day2.csv"], directory: directory.url)
        #expect(rerun.status == 0 && rerun.stdout.hasPrefix("No changes."), "\(rerun.stdout)\(rerun.stderr)")
        let token = try MigrationRelationshipKeyTests.token(2, store)
        #expect(try importer(["undo", "--store", store, token, "--dry-run"]).stdout.contains("+ Quake C  place=Gamma mag="), "the delete from before comes back")
        #expect(try importer(["undo", "--store", store, token, "--dry-run"]).stdout.contains("source=legacy"))
    }

    /// Every change in history as "type key [attribute old→new…]".
    static func history(_ store: String) throws -> [String] {
        let history = try importer(["history", "--store", store, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let transactions = (history.json as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        return transactions.flatMap { $0["changes"] as? [[String: Any]] ?? [] }.map { change in
            var line = "\(change["type"] ?? "") \((change["key"] as? [String: Any])?["code"] ?? "")"
            for (name, values) in (change["changed"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }) {
                line += " \(name) \(values["old"] ?? "")→\(values["new"] ?? "")"
            }
            return line
        }
    }

    static func viewRows(_ store: String) throws -> [[String: String]] {
        try AttributeNameTests.viewRows("quake_by_kind", store: store)
    }

    func schemaVersion(_ store: String) throws -> Int? {
        (try importer(["status", "--store", store, "--format", "json"]).json as? [String: Any])?["schema_version"] as? Int
    }

    func changeColumns(_ store: String) throws -> [String] {
        let query = try importer(["query", "SELECT group_concat(name, '|') FROM pragma_table_info('importer_change_quake')", "--raw", "--store", store])
        return query.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
    }
}
