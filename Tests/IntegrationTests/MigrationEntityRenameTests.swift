import Foundation
import ImporterTestSupport
import Testing

/// Renaming an entity (issue 45.2, `renamed-from:` on the entity, Core Data's renaming
/// identifier): its tables, history, views, consumer filters and relationships follow the new
/// name, no record rewritten, and the next import of the same feed reports only real changes.
@Suite struct MigrationEntityRenameTests {
    /// The GBFS model with its child entity StationVehicle renamed Vehicle, in a table of that name.
    static func renamed(_ text: String) -> String {
        text.replacingOccurrences(of: "- name: StationVehicle\n  table: station_vehicle\n", with: "- name: Vehicle\n  renamed-from: StationVehicle\n  table: vehicle\n")
            .replacingOccurrences(of: "entity: StationVehicle", with: "entity: Vehicle")
    }

    static func vehicles(_ store: String) throws -> [Substring] {
        Array(try importer(["query", "--store", store, "--format", "csv", "SELECT station_id, vehicle_type_id, count FROM vehicle ORDER BY station_id, vehicle_type_id"])
            .stdout.split(separator: "\r\n").dropFirst())
    }

    @Test(arguments: ["sqlite", "postgres"]) func aRenamedChildEntityKeepsItsHistory(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = ChildEntityTests.model
        let v2 = try directory.write("v2.yaml", Self.renamed(try String(contentsOfFile: v1, encoding: .utf8)))
        #expect(try importer(["run", "--store", store, "--model", v1, sample("gbfs/station-status-1.json")]).status == 0)
        #expect(try importer(["consumers", "add", "--store", store, "dashboard", "--entity", "StationVehicle"]).status == 0)
        let vehicles = try ChildEntityTests.vehicles(store)
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.status == 0 && plan.stdout.contains("rename entity StationVehicle → Vehicle: no record rewritten")
                && plan.stdout.contains("rename the table of Vehicle: station_vehicle → vehicle"), "\(plan.stdout)\(plan.stderr)")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        #expect(try Self.vehicles(store) == vehicles)
        // The past reads under the new name; the consumer's filter follows.
        let past = try importer(["history", "--store", store, "--key", "C3", "--entity", "Station", "--format", "ndjson"]).stdout
        #expect(past.contains(#""entity":"Vehicle""#) && !past.contains("StationVehicle"), "\(past)")
        #expect(try importer(["consumers", "list", "--store", store]).stdout.contains("entities Vehicle"))
        // Day 2 under the new model: the counts the GBFS test expects of StationVehicle, as Vehicle.
        let second = try importer(["run", "--store", store, "--model", v2, "--format", "json", sample("gbfs/station-status-2.json")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(ChildEntityTests.counts(second, "Vehicle") == ["inserted": 2, "updated": 1, "deleted": 2, "unchanged": 9, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(second.stdout)")
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let exported = try importer(["export", "--store", store, "--format", "ndjson"]).stdout
        #expect(exported.contains(#""vehicles":[{"vehicle_type_id":"bike","count":"#), "children still nested under their parent: \(exported)")
        #expect(try importer(["undo", "--store", store, "--last"]).status == 0)
        #expect(try Self.vehicles(store) == vehicles, "undo after the rename restores the day-1 children")
        #expect(try importer(["run", "--store", store, "--model", v2, sample("gbfs/station-status-1.json")]).stdout.hasPrefix("No changes."))
    }

    /// A rename is a step a run may take by itself (`run --migrate`); a model renaming from a name
    /// it still declares is refused by its check.
    @Test func aRunMigratesARenameByItself() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        // With steps registering alone would take (an optional attribute, an index): the migration does them too.
        let v2 = try directory.write("v2.yaml", Self.renamed(try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8))
            .replacingOccurrences(of: "  - {name: last_reported, type: datetime}\n", with: "  - {name: last_reported, type: datetime}\n  - {name: note, type: text}\n  indexes: [[num_bikes_available]]\n"))
        #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-1.json")]).status == 0)
        let refused = try importer(["run", "--store", store, "--model", v2, sample("gbfs/station-status-2.json")])
        #expect(refused.status == 78 && refused.stderr.contains("rename entity StationVehicle → Vehicle") && refused.stderr.contains("or run with --migrate"),
                "\(refused.stderr)")
        let run = try importer(["run", "--store", store, "--model", v2, "--migrate", "--format", "json", sample("gbfs/station-status-2.json")])
        #expect(run.status == 0 && ChildEntityTests.counts(run, "Vehicle")["deleted"] == 2, "\(run.stdout)\(run.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(note) FROM station"]).stdout == "0\n", "the added column exists")
        #expect(try importer(["migrate", "--store", store, "--model", v2, "--plan"]).stdout.contains("no migration to do"))
        let twice = try directory.write("twice.yaml", try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
            .replacingOccurrences(of: "- name: Station\n", with: "- name: Station\n  renamed-from: StationVehicle\n"))
        let check = try importer(["model", "check", twice])
        #expect(check.status == 78 && check.stderr.contains("entity Station is renamed from 'StationVehicle', which the model still declares"), "\(check.stderr)")
    }

    /// A parent's new key that a child the model leaves out would not begin its key with is
    /// refused (78), named, store untouched.
    @Test func aParentsKeyWithItsChildrenLeftOutIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-1.json")]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "ndjson"]).stdout
        let stationsOnly = try directory.write("v2.yaml", """
            entities:
            - name: Station
              table: station
              key: [station_id, last_reported]
              attributes:
              - {name: station_id, type: text, required: true}
              - {name: num_bikes_available, type: integer}
              - {name: last_reported, type: datetime, required: true}
            feeds:
            - name: station-status
              entity: Station
              format: json
              records: /data/stations
              fields:
              - {attribute: station_id, field: station_id}
              - {attribute: num_bikes_available, field: num_bikes_available}
              - {attribute: last_reported, field: last_reported, format: epoch-s}
            """)
        let refused = try importer(["migrate", "--store", store, "--model", stationsOnly])
        #expect(refused.status == 78 && refused.stderr.contains("the key of Station becomes (station_id, last_reported) but its children StationVehicle (relationship 'vehicles') "
                                                                  + "would be keyed (station_id, vehicle_type_id)"), "\(refused.stdout)\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "ndjson"]).stdout == export)
    }
}
