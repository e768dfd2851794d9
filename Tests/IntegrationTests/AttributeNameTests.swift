import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Any attribute name a feed may carry works on both backends: the names of importer's own change
/// columns (`type`, `changed`, `record_id`, `change_id`, `transaction_number`), an update's old
/// value column (`old.type`), SQL keywords, mixed case, spaces, quotes and non-ASCII, through a
/// first run, a `--sync` run, history, report, export, a view grouped by `type`, and undo.
@Suite struct AttributeNameTests {
    static let model = #"""
        entities:
        - name: Event
          table: event
          key: [change_id]
          tombstone: [change_id, type]
          attributes:
          - {name: change_id, type: integer, required: true}
          - {name: type, type: text}
          - {name: changed, type: text}
          - {name: record_id, type: integer}
          - {name: transaction_number, type: integer}
          - {name: select, type: text}
          - {name: order, type: integer}
          - {name: Mixed Case, type: text}
          - {name: depth km, type: real}
          - {name: Tiefe_ü, type: real}
          - {name: 距離, type: integer}
          - {name: old.type, type: text}
          - {name: "it's \"quoted\"", type: text}
          derived:
          - {name: deep, type: integer, expression: "\"depth km\" > 10"}
          - {name: select order, type: text, expression: "\"select\" || '-' || \"order\""}
        feeds:
        - name: events
          entity: Event
          format: csv
          fields:
          - {attribute: change_id, field: id}
          - {attribute: type, field: kind}
          - {attribute: changed, field: chg}
          - {attribute: record_id, field: rid}
          - {attribute: transaction_number, field: txn}
          - {attribute: select, field: sel}
          - {attribute: order, field: ord}
          - {attribute: Mixed Case, field: mc}
          - {attribute: depth km, field: depth}
          - {attribute: Tiefe_ü, field: tiefe}
          - {attribute: 距離, field: dist}
          - {attribute: old.type, field: oldtype}
          - {attribute: "it's \"quoted\"", field: quoted}
        views:
        - name: event_by_type
          entity: Event
          group-by: [type]
          aggregates:
          - {name: events, function: count}
          - {name: depth_sum, function: sum, attribute: depth km}
          - {name: tiefe_avg, function: avg, attribute: Tiefe_ü}
        - name: event_by_depth
          entity: Event
          group-by: [deep]
          aggregates:
          - {name: events, function: count}
        """#

    static let header = "id,kind,chg,rid,txn,sel,ord,mc,depth,tiefe,dist,oldtype,quoted\n"
    static let day1 = header + """
        1,quake,a,10,100,s1,1,M1,5.5,1.5,7,o1,q1
        2,blast,b,20,200,s2,2,M2,12.0,2.5,8,o2,q2
        3,quake,c,30,300,s3,3,M3,20.0,3.5,9,o3,q3

        """
    /// 1 unchanged, 2 changes `type`, `changed`, `depth km`, `old.type` and the quoted one, 3 is
    /// gone, 4 is new.
    static let day2 = header + """
        1,quake,a,10,100,s1,1,M1,5.5,1.5,7,o1,q1
        2,quake,bb,20,200,s2,2,M2,13.0,2.5,8,o2x,q2x
        4,blast,d,40,400,s4,4,M4,30.0,4.5,10,o4,q4

        """

    @Test func everyNameWorksOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.exercise(store: directory.path("s.sqlite"), in: directory)
    }

    @Test func everyNameWorksOnPostgreSQL() throws {
        let cluster = try PostgresTestCluster.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.exercise(store: try cluster.newStoreURL(), in: directory)
    }

    static func exercise(store: String, in directory: TemporaryDirectory) throws {
        let model = directory.path("model.yaml")
        try Self.model.write(toFile: model, atomically: true, encoding: .utf8)
        try day1.write(toFile: directory.path("day1.csv"), atomically: true, encoding: .utf8)
        try day2.write(toFile: directory.path("day2.csv"), atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", model])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let shown = try importer(["model", "show", "--model", model])
        // Expressions print the names they quote quoted (YAML escapes the quotes), and read back.
        #expect(shown.stdout.contains(#"\"depth km\" > 10"#) && shown.stdout.contains("select || '-' || order"), "\(shown.stdout)")
        try shown.stdout.write(toFile: directory.path("shown.yaml"), atomically: true, encoding: .utf8)
        #expect(try importer(["model", "check", directory.path("shown.yaml")]).status == 0)

        let first = try importer(["run", "--store", store, "--model", model, "--format", "json", directory.path("day1.csv")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(totals(first) == ["inserted": 3, "updated": 0, "deleted": 0])
        let second = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json", directory.path("day2.csv")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(totals(second) == ["inserted": 1, "updated": 1, "deleted": 1])

        let records = try export(store)
        #expect(records.count == 3)
        let two = records["2"] ?? [:]
        #expect(two["type"] as? String == "quake" && two["changed"] as? String == "bb" && two["record_id"] as? Int == 20
                && two["transaction_number"] as? Int == 200 && two["select"] as? String == "s2" && two["order"] as? Int == 2
                && two["Mixed Case"] as? String == "M2" && (two["depth km"] as? NSNumber)?.doubleValue == 13
                && (two["Tiefe_ü"] as? NSNumber)?.doubleValue == 2.5 && two["距離"] as? Int == 8 && two["old.type"] as? String == "o2x"
                && two["it's \"quoted\""] as? String == "q2x", "\(two)")

        let changes = try history(store)
        #expect(changes.map { $0["type"] as? String ?? "" } == ["insert", "insert", "insert", "update", "delete", "insert"])
        let update = changes.first { $0["type"] as? String == "update" }
        let changed = update?["changed"] as? [String: [String: Any]] ?? [:]
        #expect(Set(changed.keys) == ["type", "changed", "depth km", "old.type", "it's \"quoted\""], "\(changed)")
        #expect(changed["type"]?["old"] as? String == "blast" && changed["type"]?["new"] as? String == "quake")
        #expect(changed["changed"]?["old"] as? String == "b" && changed["old.type"]?["old"] as? String == "o2")
        #expect((changed["depth km"]?["old"] as? NSNumber)?.doubleValue == 12)
        let deleted = changes.first { $0["type"] as? String == "delete" }
        let tombstone = deleted?["tombstone"] as? [String: Any] ?? [:]
        #expect(tombstone.count == 2 && tombstone["change_id"] as? Int == 3 && tombstone["type"] as? String == "quake", "\(tombstone)")
        let inserted = changes.last?["values"] as? [String: Any] ?? [:]
        #expect(inserted["record_id"] as? Int == 40 && inserted["type"] as? String == "blast" && inserted["距離"] as? Int == 10)

        let report = try importer(["report", "--store", store, "--report", "markdown"])
        #expect(report.status == 0 && report.stdout.contains("depth km"), "\(report.stderr)")

        #expect(try viewRows("event_by_type", store: store) == [
            ["type": "blast", "events": "1", "depth_sum": "30", "tiefe_avg": "4.5"],
            ["type": "quake", "events": "2", "depth_sum": "18.5", "tiefe_avg": "2"],
        ])
        #expect(try viewRows("event_by_depth", store: store) == [["deep": "0", "events": "1"], ["deep": "1", "events": "2"]])
        let verify = try importer(["views", "verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        let undo = try importer(["undo", "--last", "--store", store])
        #expect(undo.status == 0, "\(undo.stderr)")
        let restored = try export(store)
        #expect(Set(restored.keys) == ["1", "2", "3"])
        #expect(restored["2"]?["type"] as? String == "blast" && (restored["2"]?["depth km"] as? NSNumber)?.doubleValue == 12
                && restored["2"]?["it's \"quoted\""] as? String == "q2")
        #expect(try viewRows("event_by_type", store: store) == [
            ["type": "blast", "events": "1", "depth_sum": "12", "tiefe_avg": "2.5"],
            ["type": "quake", "events": "2", "depth_sum": "25.5", "tiefe_avg": "2.5"],
        ])
        #expect(try history(store).count == 9)
    }

    static func totals(_ execution: Execution) -> [String: Int] {
        let totals = (execution.json as? [String: Any])?["totals"] as? [String: Any] ?? [:]
        return totals.filter { ["inserted", "updated", "deleted"].contains($0.key) }.compactMapValues { $0 as? Int }
    }

    /// The records by `change_id`, as `export --format json` prints them.
    static func export(_ store: String) throws -> [String: [String: Any]] {
        let export = try importer(["export", "--store", store, "--format", "json"])
        #expect(export.status == 0, "\(export.stderr)")
        let records = export.json as? [[String: Any]] ?? []
        return Dictionary(records.map { ("\($0["change_id"] ?? "")", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every change in history, in order.
    static func history(_ store: String) throws -> [[String: Any]] {
        let history = try importer(["history", "--store", store, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let transactions = (history.json as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        return transactions.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
    }

    /// A view's rows as `views show --format json` prints them, numbers to 6 significant digits
    /// (an average's running sum is added in the replay's order).
    static func viewRows(_ view: String, store: String) throws -> [[String: String]] {
        let shown = try importer(["views", "show", view, "--format", "json", "--store", store])
        #expect(shown.status == 0, "\(shown.stderr)")
        return (shown.json as? [[String: Any]] ?? []).map { row in
            row.mapValues { value in
                if let text = value as? String { return text }
                if let number = value as? NSNumber { return String(format: "%g", number.doubleValue) }
                return "\(value)"
            }
        }
    }
}
