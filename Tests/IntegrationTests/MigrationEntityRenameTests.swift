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

/// `removed-entities:` (issue 45.2): the entity's table goes, with the views over it; its past
/// changes stay in history (listed, purged with the rest); undo of one is refused (65); a new
/// entity in its table, or a parent removed without its children, is refused (78). Both backends.
@Suite struct MigrationEntityRemovalTests {
    /// The GBFS model without its vehicles: stations only, StationVehicle removed.
    static func stationsOnly() throws -> String {
        let text = try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
        // The entities up to StationVehicle, the feed up to its children; no view (it read the vehicles).
        guard let vehicles = text.range(of: "- name: StationVehicle\n"), let feeds = text.range(of: "feeds:\n"),
              let children = text.range(of: "  children:\n") else { return "" }
        return String(text[..<vehicles.lowerBound]).replacingOccurrences(of: "  relationships:\n  - {name: vehicles, entity: StationVehicle, records: /vehicle_types_available, key: [vehicle_type_id], delete: cascade}\n", with: "")
            + "removed-entities: [StationVehicle]\n" + String(text[feeds.lowerBound..<children.lowerBound])
    }

    @Test(arguments: ["sqlite", "postgres"]) func aRemovedEntityLeavesItsHistory(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        for day in 1...2 {
            #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-\(day).json")]).status == 0)
        }
        let before = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let v2 = try directory.write("v2.yaml", try Self.stationsOnly())
        #expect(try importer(["model", "check", v2]).status == 0)
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.stdout.contains("remove entity StationVehicle: its table and 13 record(s) go"), "\(plan.stdout)\(plan.stderr)")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        #expect(try importer(["query", "--store", store, "SELECT count(*) FROM station_vehicle"]).status != 0, "the table is gone")
        #expect(try importer(["views", "list", "--store", store]).stdout.contains("No views."), "the view over it went with it")
        // The past changes read as they did (without their parent, the relationship having gone).
        let vehicles = { (text: String) in text.split(separator: "\n").filter { $0.contains(#""entity":"StationVehicle""#) }
            .map { $0.replacingOccurrences(of: #","parent":\{[^{}]*\{[^{}]*\}\}"#, with: "", options: .regularExpression) } }
        let after = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(vehicles(after).count == 18 && vehicles(after) == vehicles(before), "\(after)")
        let undo = try importer(["undo", "--store", store, try MigrationRelationshipKeyTests.token(2, store)])
        #expect(undo.status == 65 && undo.stderr.contains("transaction 2 cannot be undone: it changed entity StationVehicle, which a later migration removed"), "\(undo.stderr)")
        let run = try importer(["run", "--store", store, "--model", v2, sample("gbfs/station-status-2.json")])
        #expect(run.status == 0 && run.stdout.hasPrefix("No changes."), "\(run.stdout)\(run.stderr)")
        let diff = try importer(["model", "diff", "--store", store, "--model", v2])
        #expect(diff.status == 0 && !diff.stderr.contains("warning"), "a removal made already is no unknown name: \(diff.stderr)")
        // Its history is purged with the rest (the view no longer holds it back).
        let purge = try importer(["history", "purge", "--store", store, "--before", try MigrationRelationshipKeyTests.token(3, store), "--force", "--format", "json"])
        #expect(purge.status == 0 && (purge.json as? [String: Any])?["transactions"] as? Int == 3, "\(purge.stdout)\(purge.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_change_station_vehicle"]).stdout == "0\n")
        // Its table keeps its history's name: a new entity there is refused.
        let again = try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-2.json")])
        #expect(again.status == 78 && again.stderr.contains("entity StationVehicle (table 'station_vehicle') was removed by a migration"), "\(again.stderr)")
        // Nor may another entity be renamed to it.
        let renamed = try directory.write("v3.yaml", try Self.stationsOnly().replacingOccurrences(of: "- name: Station\n", with: "- name: StationVehicle\n  renamed-from: Station\n")
            .replacingOccurrences(of: "removed-entities: [StationVehicle]\n", with: "").replacingOccurrences(of: "entity: Station\n", with: "entity: StationVehicle\n"))
        let refused = try importer(["migrate", "--store", store, "--model", renamed])
        #expect(refused.status == 78 && refused.stderr.contains("entity StationVehicle (table 'station_vehicle') was removed by a migration"), "\(refused.stdout)\(refused.stderr)")
    }

    /// A model that removes an entity it still declares, or renames one to it, is refused by
    /// `model check` (78), named.
    @Test func aRemovedEntityTheModelStillDeclaresIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let both = try directory.write("both.yaml", try Self.stationsOnly().replacingOccurrences(of: "removed-entities: [StationVehicle]", with: "removed-entities: [Station]"))
        let check = try importer(["model", "check", both])
        #expect(check.status == 78 && check.stderr.contains("removed-entities: Station is removed, but the model still declares it (or renames it)"), "\(check.stderr)")
    }

    @Test func aParentRemovedWithoutItsChildrenIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", sample("models/orders-lines-parts.yaml"), try directory.write("1.json", #"[{"id":"o1","lines":[{"sku":"s1","qty":1}]}]"#)]).status == 0)
        let export = try importer(["export", "--store", store, "--entity", "Line", "--format", "ndjson"]).stdout
        let v2 = try directory.write("v2.yaml", """
            entities:
            - name: Line
              key: [order_id, sku]
              attributes:
              - {name: order_id, type: text, required: true}
              - {name: sku, type: text, required: true}
              - {name: qty, type: integer}
            removed-entities: [Order]
            feeds:
            - name: lines
              entity: Line
              format: ndjson
              fields:
              - {attribute: order_id, field: order}
              - {attribute: sku, field: sku}
              - {attribute: qty, field: qty}
            """)
        let refused = try importer(["migrate", "--store", store, "--model", v2])
        #expect(refused.status == 78 && refused.stderr.contains("remove entity Order: its children Line (relationship 'lines') would stay"), "\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--entity", "Line", "--format", "ndjson"]).stdout == export)
    }
}
