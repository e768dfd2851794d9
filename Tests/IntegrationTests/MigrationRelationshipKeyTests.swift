import Foundation
import ImporterTestSupport
import Testing

/// Key steps on entities in a relationship (issue 45.2): a child's key begins with its parent's,
/// so when the parent's key gains an attribute each child takes it from its parent record (found
/// by the old key), in the store and in history, before its own key changes; a key retyped on
/// every level converts each level alike; a child's own key may change, and its children follow.
/// Records keep their ids: history, undo and the next run's counts read them under the new keys.
@Suite struct MigrationRelationshipKeyTests {
    /// The GBFS model once the feed merges systems that reuse station ids: stations keyed by
    /// (system_id, station_id), stored ones of the one system so far (`default: oslo`), and their
    /// vehicles keyed by their station's key then their type.
    static func systems(childDefault: String? = nil, relationship: String = "delete: cascade") throws -> String {
        try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
            .replacingOccurrences(of: "  key: [station_id]\n  attributes:\n  - {name: station_id, type: text, required: true}\n",
                                  with: "  key: [system_id, station_id]\n  attributes:\n  - {name: system_id, type: text, required: true, default: oslo}\n"
                                      + "  - {name: station_id, type: text, required: true}\n")
            .replacingOccurrences(of: "  key: [station_id, vehicle_type_id]\n  attributes:\n",
                                  with: "  key: [system_id, station_id, vehicle_type_id]\n  attributes:\n  - {name: system_id, type: text, required: true"
                                      + (childDefault.map { ", default: \($0)" } ?? "") + "}\n")
            .replacingOccurrences(of: "  - {attribute: station_id, field: station_id}\n", with: "  - {attribute: system_id, field: system_id}\n  - {attribute: station_id, field: station_id}\n")
            .replacingOccurrences(of: "delete: cascade", with: relationship)
    }

    static func token(_ number: Int, _ store: String) throws -> String {
        try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = \(number)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["sqlite", "postgres"]) func aParentsWiderKeyIsTakenByItsChildren(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v2 = try directory.write("v2.yaml", try Self.systems())
        #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-1.json")]).status == 0)
        let day1 = try ChildEntityTests.vehicles(store)
        #expect(try importer(["run", "--store", store, "--model", ChildEntityTests.model, sample("gbfs/station-status-2.json")]).status == 0)
        let day2 = try ChildEntityTests.vehicles(store)
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.status == 0 && plan.stdout.contains("StationVehicle takes system_id from its Station (found by station_id): 13 stored record(s)"), "\(plan.stdout)\(plan.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_transaction"]).stdout == "2\n", "--plan changes nothing")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        #expect(try ChildEntityTests.vehicles(store) == day2)
        // Every vehicle, and every past change of one (deleted ones too), holds its station's system.
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM station_vehicle WHERE system_id = 'oslo'"]).stdout == "13\n")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_change_station_vehicle WHERE system_id IS NULL"]).stdout == "0\n")
        let timeline = try importer(["history", "--store", store, "--key", "oslo, J9", "--entity", "Station"])
        #expect(timeline.status == 0 && timeline.stdout.contains("+ Station oslo, J9") && timeline.stdout.contains("+ StationVehicle ebike"), "\(timeline.stdout)")
        // Another system's H8 is a station of its own; the rest of the feed is no change.
        let day3 = try importer(["run", "--store", store, "--model", v2, "--format", "json", sample("gbfs/station-status-3-systems.json")])
        #expect(ChildEntityTests.counts(day3, "Station")["inserted"] == 1 && ChildEntityTests.counts(day3, "Station")["updated"] == 0
                && ChildEntityTests.counts(day3, "StationVehicle")["inserted"] == 1 && ChildEntityTests.counts(day3, "StationVehicle")["updated"] == 0
                && ChildEntityTests.counts(day3, "StationVehicle")["deleted"] == 0, "\(day3.stdout)\(day3.stderr)")
        // Day 2, from before the migration, undone: its deleted vehicles come back under the new key.
        let undo = try importer(["undo", "--store", store, try Self.token(2, store)])
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        #expect(try ChildEntityTests.vehicles(store).sorted() == (day1 + [#""H8","bike",1"#]).sorted(), "day 1's vehicles and bergen's")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM station_vehicle WHERE system_id IS NULL"]).stdout == "0\n")
    }

    /// Orders → lines → parts: an order's key gains its shop; its lines take it from the order,
    /// its parts from their line, in one migration; undo of a run from before it puts back a
    /// deleted order with its tree, each level under its new key.
    @Test(arguments: ["sqlite", "postgres"]) func grandchildrenTakeWhatTheirParentJustTook(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = sample("models/orders-lines-parts.yaml")
        let v2 = try directory.write("v2.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "  key: [order_id]\n  attributes:\n", with: "  key: [shop, order_id]\n  attributes:\n  - {name: shop, type: text, required: true, default: web}\n")
            .replacingOccurrences(of: "  key: [order_id, sku]\n  attributes:\n", with: "  key: [shop, order_id, sku]\n  attributes:\n  - {name: shop, type: text, required: true}\n")
            .replacingOccurrences(of: "  key: [order_id, sku, part]\n  attributes:\n", with: "  key: [shop, order_id, sku, part]\n  attributes:\n  - {name: shop, type: text, required: true}\n")
            .replacingOccurrences(of: "  - {attribute: order_id, field: id}\n", with: "  - {attribute: shop, field: shop}\n  - {attribute: order_id, field: id}\n"))
        let orders = #"[{"id":"o1","lines":[{"sku":"s1","qty":1,"parts":[{"part":"p1","n":1},{"part":"p2","n":2}]},{"sku":"s2","qty":2,"parts":[{"part":"p1","n":3}]}]},"#
            + #"{"id":"o2","lines":[{"sku":"s1","qty":5,"parts":[{"part":"p9","n":9}]}]}]"#
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("1.json", orders)]).status == 0)
        let shrunk = #"[{"id":"o1","lines":[{"sku":"s1","qty":1,"parts":[{"part":"p1","n":1}]}]}]"#
        #expect(try importer(["run", "--store", store, "--model", v1, "--sync", "--max-delete", "100%", try directory.write("2.json", shrunk)]).status == 0)
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("Part takes shop from its Line (found by order_id, sku)"), "\(migrated.stdout)\(migrated.stderr)")
        for table in ["line", "part"] {
            #expect(try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_change_\(table) WHERE shop IS NULL"]).stdout == "0\n", "\(table)")
        }
        let undo = try importer(["undo", "--store", store, try Self.token(2, store)])
        #expect(undo.status == 0 && undo.stdout.contains("+ Order web, o2"), "\(undo.stdout)\(undo.stderr)")
        let parts = try importer(["query", "--store", store, "--format", "csv", "SELECT shop, order_id, sku, part, n FROM part ORDER BY order_id, sku, part"])
        #expect(parts.stdout.split(separator: "\r\n").dropFirst() == [#""web","o1","s1","p1",1"#, #""web","o1","s1","p2",2"#, #""web","o1","s2","p1",3"#, #""web","o2","s1","p9",9"#],
                "\(parts.stdout)")
        let again = try importer(["run", "--store", store, "--model", v2, try directory.write("3.json", orders.replacingOccurrences(of: #"{"id""#, with: #"{"shop":"web","id""#))])
        #expect(again.status == 0 && again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
    }

    /// Lines keyed by their place become keyed by their sku (a re-ordered list is then no change):
    /// a child's own key changes, its records keep their ids.
    @Test(arguments: ["sqlite", "postgres"]) func aChildsOwnKeyChanges(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let natural = try String(contentsOfFile: sample("models/orders-lines-parts.yaml"), encoding: .utf8)
            .components(separatedBy: "  relationships:\n  - {name: parts").first.map { lines in
                lines + "feeds:\n- name: orders\n  entity: Order\n  format: json\n  fields:\n  - {attribute: order_id, field: id}\n  children:\n"
                    + "  - relationship: lines\n    fields:\n    - {attribute: sku, field: sku}\n    - {attribute: qty, field: qty}\n"
            } ?? ""
        let positional = natural.replacingOccurrences(of: "records: /lines, key: [sku]", with: "records: /lines, key: position")
            .replacingOccurrences(of: "  key: [order_id, sku]\n", with: "  key: [order_id, position]\n")
            .replacingOccurrences(of: "  - {name: sku, type: text, required: true}\n", with: "  - {name: position, type: integer, required: true}\n  - {name: sku, type: text, required: true}\n")
        let v1 = try directory.write("v1.yaml", positional), v2 = try directory.write("v2.yaml", natural)
        for model in [v1, v2] { #expect(try importer(["model", "check", model]).status == 0, "\(model)") }
        let orders = #"[{"id":"o1","lines":[{"sku":"s1","qty":1},{"sku":"s2","qty":2}]}]"#
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("1.json", orders)]).status == 0)
        let ids = try importer(["query", "--store", store, "--format", "csv", "SELECT id, sku FROM line ORDER BY id"]).stdout
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("change the key of Line: (order_id, position) → (order_id, sku)"), "\(migrated.stdout)\(migrated.stderr)")
        #expect(try importer(["query", "--store", store, "--format", "csv", "SELECT id, sku FROM line ORDER BY id"]).stdout == ids, "ids kept")
        let reordered = #"[{"id":"o1","lines":[{"sku":"s2","qty":2},{"sku":"s1","qty":1}]}]"#
        let run = try importer(["run", "--store", store, "--model", v2, try directory.write("2.json", reordered)])
        #expect(run.status == 0 && run.stdout.hasPrefix("No changes."), "re-ordered lines are no change now: \(run.stdout)\(run.stderr)")
    }

    /// Lines split by lot: a child's own key gains an attribute (stored lines take `default:`),
    /// and its parts, keyed by it, take the lot from their line.
    @Test(arguments: ["sqlite", "postgres"]) func aChildsWiderKeyIsTakenByItsChildren(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = sample("models/orders-lines-parts.yaml")
        let v2 = try directory.write("v2.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "records: /lines, key: [sku]", with: "records: /lines, key: [sku, lot]")
            .replacingOccurrences(of: "  key: [order_id, sku]\n", with: "  key: [order_id, sku, lot]\n")
            .replacingOccurrences(of: "  - {name: qty, type: integer}\n", with: "  - {name: lot, type: text, required: true, default: \"-\"}\n  - {name: qty, type: integer}\n")
            .replacingOccurrences(of: "  key: [order_id, sku, part]\n", with: "  key: [order_id, sku, lot, part]\n")
            .replacingOccurrences(of: "  - {name: part, type: text, required: true}\n", with: "  - {name: lot, type: text, required: true}\n  - {name: part, type: text, required: true}\n")
            .replacingOccurrences(of: "    - {attribute: qty, field: qty}\n", with: "    - {attribute: lot, field: lot}\n    - {attribute: qty, field: qty}\n"))
        #expect(try importer(["model", "check", v2]).status == 0)
        let orders = #"[{"id":"o1","lines":[{"sku":"s1","qty":1,"parts":[{"part":"p1","n":1}]},{"sku":"s2","qty":2,"parts":[{"part":"p1","n":3},{"part":"p2","n":4}]}]}]"#
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("1.json", orders)]).status == 0)
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("Part takes lot from its Line (found by order_id, sku)"), "\(migrated.stdout)\(migrated.stderr)")
        let parts = try importer(["query", "--store", store, "--format", "csv", "SELECT order_id, sku, lot, part, n FROM part ORDER BY sku, part"])
        #expect(parts.stdout.split(separator: "\r\n").dropFirst() == [#""o1","s1","-","p1",1"#, #""o1","s2","-","p1",3"#, #""o1","s2","-","p2",4"#], "\(parts.stdout)")
        // The same lines in two lots now: s2 of lot "-" keeps its parts, lot B is new.
        let lots = #"[{"id":"o1","lines":[{"sku":"s1","lot":"-","qty":1,"parts":[{"part":"p1","n":1}]},{"sku":"s2","lot":"-","qty":2,"parts":[{"part":"p1","n":3},{"part":"p2","n":4}]},"#
            + #"{"sku":"s2","lot":"B","qty":1,"parts":[{"part":"p1","n":1}]}]}]"#
        let run = try importer(["run", "--store", store, "--model", v2, "--format", "json", try directory.write("2.json", lots)])
        #expect(ChildEntityTests.counts(run, "Line")["inserted"] == 1 && ChildEntityTests.counts(run, "Line")["unchanged"] == 2
                && ChildEntityTests.counts(run, "Part")["inserted"] == 1 && ChildEntityTests.counts(run, "Part")["unchanged"] == 3, "\(run.stdout)\(run.stderr)")
    }

    /// Order ids that were text become integers on every level: each converts alike, so the
    /// children still find their parents; the next run of the same orders is no change.
    @Test(arguments: ["sqlite", "postgres"]) func aKeyRetypedOnEveryLevel(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = sample("models/orders-lines-parts.yaml")
        let v2 = try directory.write("v2.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "{name: order_id, type: text, required: true}", with: "{name: order_id, type: integer, required: true}"))
        let orders = #"[{"id":"7","lines":[{"sku":"s1","qty":1,"parts":[{"part":"p1","n":1}]}]},{"id":"12","lines":[{"sku":"s1","qty":2,"parts":[{"part":"p1","n":2}]}]}]"#
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("1.json", orders)]).status == 0)
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("retype Part.order_id: text → integer"), "\(migrated.stdout)\(migrated.stderr)")
        let export = try importer(["export", "--store", store, "--entity", "Order", "--format", "ndjson"])
        #expect(export.stdout == #"{"order_id":7,"lines":[{"sku":"s1","qty":1,"parts":[{"part":"p1","n":1}]}]}"# + "\n"
                + #"{"order_id":12,"lines":[{"sku":"s1","qty":2,"parts":[{"part":"p1","n":2}]}]}"# + "\n", "\(export.stdout)\(export.stderr)")
        let run = try importer(["run", "--store", store, "--model", v2, try directory.write("2.json", orders)])
        #expect(run.status == 0 && run.stdout.hasPrefix("No changes."), "\(run.stdout)\(run.stderr)")
    }

    /// Refused with the store untouched: a parent's new key that a child the model leaves out
    /// would not hold (78); a child without a stored parent (kept by `delete: nullify`) and no
    /// `default:` for it, and a child holding another value than its parent's (65), named.
    @Test func whatAChildCannotTakeIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let v1 = try directory.write("v1.yaml", try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
            .replacingOccurrences(of: "delete: cascade", with: "delete: nullify"))
        #expect(try importer(["run", "--store", store, "--model", v1, sample("gbfs/station-status-1.json")]).status == 0)
        let only = try directory.write("only.json", #"{"data": {"stations": [{"station_id": "H8", "vehicle_types_available": [{"vehicle_type_id": "bike", "count": 4}]}]}}"#)
        #expect(try importer(["run", "--store", store, "--model", v1, "--sync", "--max-delete", "100%", only]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "ndjson"]).stdout
        let orphans = try importer(["migrate", "--store", store, "--model", try directory.write("v2.yaml", try Self.systems(relationship: "delete: nullify"))])
        #expect(orphans.status == 65 && orphans.stderr.contains("stored StationVehicle record(s) have no stored Station to take it from")
                && orphans.stderr.contains("(J9, bike)") && orphans.stderr.contains("Give StationVehicle.system_id a default: for them"), "\(orphans.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "ndjson"]).stdout == export, "store untouched")
        let defaulted = try importer(["migrate", "--store", store, "--model", try directory.write("v3.yaml", try Self.systems(childDefault: "unknown", relationship: "delete: nullify"))])
        #expect(defaulted.status == 0, "\(defaulted.stderr)")
        #expect(try importer(["query", "--store", store, "--raw", "SELECT group_concat(DISTINCT system_id) FROM (SELECT system_id FROM station_vehicle ORDER BY system_id) AS v"]).stdout
                == "oslo,unknown\n")
    }

    @Test func aChildHoldingAnotherValueIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let holding = { (text: String) in
            text.replacingOccurrences(of: "  - {name: count, type: integer, required: true}\n", with: "  - {name: count, type: integer, required: true}\n  - {name: system_id, type: text}\n")
                .replacingOccurrences(of: "    - {attribute: count, field: count}\n", with: "    - {attribute: count, field: count}\n    - {attribute: system_id, field: system_id}\n")
        }
        let v1 = try directory.write("v1.yaml", holding(try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)))
        let feed = try directory.write("1.json", #"{"data": {"stations": [{"station_id": "H8", "vehicle_types_available": [{"vehicle_type_id": "bike", "count": 4, "system_id": "bergen"}]}, "#
            + #"{"station_id": "J9", "vehicle_types_available": [{"vehicle_type_id": "bike", "count": 1}]}]}}"#)
        #expect(try importer(["run", "--store", store, "--model", v1, feed]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "ndjson"]).stdout
        let v2 = try directory.write("v2.yaml", try Self.systems())
        let refused = try importer(["migrate", "--store", store, "--model", v2])
        #expect(refused.status == 65 && refused.stderr.contains("stored StationVehicle records hold another value than their Station's: (H8, bike)"), "\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "ndjson"]).stdout == export, "store untouched")
    }
}

/// Fills that depend on other steps of the migration: a parent's key attribute that was optional,
/// made required with a `default:`, is filled before its children take it; a `default:` expression
/// reads an attribute the same migration retypes, as retyped.
@Suite struct MigrationFillOrderTests {
    @Test(arguments: ["sqlite", "postgres"]) func childrenTakeTheParentsFilledValue(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
            .replacingOccurrences(of: "  key: [station_id]\n  attributes:\n", with: "  key: [station_id]\n  attributes:\n  - {name: system_id, type: text}\n")
            .replacingOccurrences(of: "  - {attribute: station_id, field: station_id}\n", with: "  - {attribute: system_id, field: system_id}\n  - {attribute: station_id, field: station_id}\n"))
        #expect(try importer(["run", "--store", store, "--model", v1, sample("gbfs/station-status-1.json")]).status == 0)
        let v2 = try directory.write("v2.yaml", try MigrationRelationshipKeyTests.systems(childDefault: "unknown"))
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0 && migrated.stdout.contains("make Station.system_id required, stored nulls take oslo"), "\(migrated.stdout)\(migrated.stderr)")
        let systems = try importer(["query", "--store", store, "--format", "csv", "SELECT DISTINCT system_id FROM station_vehicle"]).stdout
        #expect(systems.split(separator: "\r\n").dropFirst() == [#""oslo""#], "the vehicles took their stations' filled value: \(systems)")
    }

    @Test(arguments: ["sqlite", "postgres"]) func anExpressionReadsWhatTheMigrationRetyped(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = MigrationUndoFillTests.v1.replacingOccurrences(of: "  - {name: name, type: text}\n", with: "  - {name: name, type: text}\n  - {name: level, type: text}\n")
            .replacingOccurrences(of: "  - {attribute: name, field: name}\n", with: "  - {attribute: name, field: name}\n  - {attribute: level, field: level}\n")
        #expect(try importer(["run", "--store", store, "--model", try directory.write("v1.yaml", v1),
                              try directory.write("1.ndjson", #"{"code":"A","name":"a","level":"3"}"# + "\n" + #"{"code":"B","name":"b","level":"12"}"# + "\n")]).status == 0)
        let v2 = v1.replacingOccurrences(of: "  - {name: name, type: text}\n  - {name: level, type: text}\n",
                                         with: "  - {name: name, type: text}\n  - {name: twice, type: integer, required: true, default: {expression: \"coalesce(level * 2, 0)\"}}\n  - {name: level, type: integer}\n")
        let migrated = try importer(["migrate", "--store", store, "--model", try directory.write("v2.yaml", v2)])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let rows = try importer(["query", "--store", store, "--format", "csv", "SELECT code, level, twice FROM station ORDER BY code"]).stdout
        #expect(rows.split(separator: "\r\n").dropFirst() == [#""A",3,6"#, #""B",12,24"#], "\(rows)")
    }
}

/// A child attribute the store already held, made required with a `default:` and part of its
/// parent's new key: the child takes its parent's value, the default only where it has no parent.
@Suite struct MigrationTakenDefaultTests {
    @Test func aHeldChildAttributeTakesItsParentsValueBeforeItsDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let v1 = try directory.write("v1.yaml", try String(contentsOfFile: ChildEntityTests.model, encoding: .utf8)
            .replacingOccurrences(of: "  - {name: count, type: integer, required: true}\n", with: "  - {name: count, type: integer, required: true}\n  - {name: system_id, type: text}\n"))
        #expect(try importer(["run", "--store", store, "--model", v1, sample("gbfs/station-status-1.json")]).status == 0)
        let migrated = try importer(["migrate", "--store", store, "--model", try directory.write("v2.yaml", try MigrationRelationshipKeyTests.systems(childDefault: "unknown"))])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let systems = try importer(["query", "--store", store, "--format", "csv", "SELECT DISTINCT system_id FROM station_vehicle"]).stdout
        #expect(systems.split(separator: "\r\n").dropFirst() == [#""oslo""#], "\(systems)")
    }
}
