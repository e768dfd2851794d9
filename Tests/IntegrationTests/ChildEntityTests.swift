import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Child entities (issue 44): a GBFS station status whose stations list their vehicles by type in
/// any order, stored as StationVehicle records keyed by (station, type). Counts are those worked
/// out by hand from the two snapshots in SampleData/gbfs; the same on SQLite and PostgreSQL.
@Suite struct ChildEntityTests {
    static let model = sample("models/gbfs-station-status.yaml")

    /// What one entity's counts are in a run's JSON report.
    static func counts(_ run: Execution, _ entity: String) -> [String: Int] {
        ((run.json as? [String: Any])?["entities"] as? [String: Any])?[entity] as? [String: Int] ?? [:]
    }

    static func vehicles(_ store: String) throws -> [Substring] {
        try importer(["query", "--store", store, "--format", "csv",
                      "SELECT station_id, vehicle_type_id, count FROM station_vehicle ORDER BY station_id, vehicle_type_id"])
            .stdout.split(separator: "\r\n").dropFirst().map { $0 }
    }

    @Test func theParentsArrayIsASnapshotOfItsChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.snapshot(store: directory.path("gbfs.sqlite"))
    }

    @Test func theParentsArrayIsASnapshotOfItsChildrenOnPostgreSQL() throws {
        try Self.snapshot(store: try PostgresTestCluster.start().newStoreURL())
    }

    static func snapshot(store: String) throws {
        #expect(try importer(["model", "check", model]).status == 0)
        let first = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("gbfs/station-status-1.json")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(counts(first, "Station")["inserted"] == 8 && counts(first, "StationVehicle")["inserted"] == 13, "\(first.stdout)")
        // C3 writes its station_id after its vehicles: read all the same.
        #expect(try vehicles(store).contains(#""C3","cargo",1"#))
        // Day 2: A1 re-ordered (no change), B2's ebike 1 → 2 (an update), C3's cargo gone and
        // G7's list empty (two deletes), D4's list absent (its bike kept), E5 new with two.
        let second = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("gbfs/station-status-2.json")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(counts(second, "StationVehicle") == ["inserted": 2, "updated": 1, "deleted": 2, "unchanged": 9, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(second.stdout)")
        #expect(counts(second, "Station")["updated"] == 3 && counts(second, "Station")["inserted"] == 1, "\(second.stdout)")
        let rows = try vehicles(store)
        #expect(rows.contains(#""B2","ebike",2"#) && rows.contains(#""D4","bike",2"#) && !rows.contains { $0.hasPrefix(#""G7""#) }
                && !rows.contains(#""C3","cargo",1"#) && rows.count == 13, "\(rows)")
        let changes = try importer(["history", "--store", store, "--format", "json"])
        #expect(changes.stdout.contains("\"cargo\""), "the delete is history with the child's key: \(changes.stdout)")
        // C3's timeline holds its vehicles' changes: three inserted, the cargo bike deleted.
        let timeline = try importer(["history", "--store", store, "--key", "C3", "--entity", "Station", "--format", "json"])
        let transactions = (timeline.json as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        let timelineChanges = transactions.flatMap { $0["changes"] as? [[String: Any]] ?? [] }.map { "\($0["entity"] ?? "") \($0["type"] ?? "")" }
        #expect(timelineChanges.sorted() == ["Station insert", "Station update", "StationVehicle delete", "StationVehicle insert", "StationVehicle insert", "StationVehicle insert"],
                "\(timeline.stdout)\(timeline.stderr)")
        #expect(!timeline.stdout.contains("\"B2\""), "only C3's children: \(timeline.stdout)")
        // The view over the children, replayed from each run's changes, equals its recomputation.
        let view = try #require(try importer(["views", "show", "vehicles_by_type", "--store", store, "--format", "json"]).json as? [[String: Any]])
        let computed = try importer(["query", "--store", store, "--format", "csv",
                                     "SELECT vehicle_type_id, count(*), sum(count) FROM station_vehicle GROUP BY vehicle_type_id ORDER BY vehicle_type_id"])
        let shown = view.sorted { "\($0["vehicle_type_id"] ?? "")" < "\($1["vehicle_type_id"] ?? "")" }.map { row in
            "\"\(row["vehicle_type_id"] ?? "")\",\(row["stations"] ?? ""),\((row["available"] as? NSNumber)?.intValue ?? -1)"
        }
        #expect(shown == computed.stdout.split(separator: "\r\n").dropFirst().map(String.init), "\(view) against \(computed.stdout)")
        let again = try importer(["run", "--store", store, "--model", model, sample("gbfs/station-status-2.json")])
        #expect(again.status == 0 && again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
        // A list path that matches nothing in any record is said, and every stored child kept.
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanup() }
        let renamed = try scratch.write("renamed.json", try String(contentsOfFile: sample("gbfs/station-status-2.json"), encoding: .utf8)
            .replacingOccurrences(of: "vehicle_types_available", with: "vehicle_types"))
        let unmatched = try importer(["run", "--store", store, "--model", model, "--format", "json", renamed])
        #expect(unmatched.status == 0 && unmatched.stdout.contains("no record has a list at /vehicle_types_available: the stored StationVehicle records are kept"),
                "\(unmatched.stdout)\(unmatched.stderr)")
        #expect(try vehicles(store) == rows)
        // Thousands of stations leaving out their list while one lists its vehicles: all kept.
        let many = (0..<1_500).map { #"{"station_id": "m\#($0)", "vehicle_types_available": [{"vehicle_type_id": "bike", "count": 1}]}"# }
        let listed = try scratch.write("listed.json", #"{"data": {"stations": ["# + many.joined(separator: ",") + "]}}")
        #expect(try importer(["run", "--store", store, "--model", model, listed]).status == 0)
        let unlisted = try scratch.write("unlisted.json", #"{"data": {"stations": ["# + (0..<1_500).map { #"{"station_id": "m\#($0)"}"# }.joined(separator: ",")
            + #", {"station_id": "A1", "vehicle_types_available": [{"vehicle_type_id": "bike", "count": 3}, {"vehicle_type_id": "ebike", "count": 2}]}]}}"#)
        let absent = try importer(["run", "--store", store, "--model", model, "--format", "json", unlisted])
        #expect(absent.status == 0 && counts(absent, "StationVehicle")["deleted"] == 0, "\(absent.stdout)\(absent.stderr)")
        // Children need the document twice: standard input is refused (64), nothing written.
        let piped = try importer(["run", "--store", store, "--model", model, "--format", "json", "-"],
                                 stdin: try Data(contentsOf: URL(fileURLWithPath: sample("gbfs/station-status-1.json"))))
        #expect(piped.status == 64 && piped.stderr.contains("not standard input"), "\(piped.stdout)\(piped.stderr)")
        #expect(try vehicles(store).filter { !$0.hasPrefix(#""m"#) } == rows)
    }

    /// A station gone from a `--sync` snapshot takes its vehicles with it (cascade), each a
    /// delete with its key; `undo --last` brings both back. `deny` refuses the run (65) with the
    /// store untouched; `nullify` keeps the children.
    @Test func aParentsDeleteFollowsTheDeleteRule() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.deleteRules(directory: directory, store: { directory.path("\($0).sqlite") })
    }

    @Test func aParentsDeleteFollowsTheDeleteRuleOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        try Self.deleteRules(directory: directory, store: { _ in try cluster.newStoreURL() })
    }

    static func deleteRules(directory: TemporaryDirectory, store name: (String) throws -> String) throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample("gbfs/station-status-2.json")))) as? [String: Any])
        var data = try #require(document["data"] as? [String: Any])
        data["stations"] = (data["stations"] as? [[String: Any]] ?? []).filter { $0["station_id"] as? String != "B2" }
        var withoutB2 = document
        withoutB2["data"] = data
        let day3 = try directory.write("day3.json", String(decoding: try JSONSerialization.data(withJSONObject: withoutB2), as: UTF8.self))
        let text = try String(contentsOfFile: model, encoding: .utf8)
        for rule in ["cascade", "deny", "nullify"] {
            let store = try name(rule)
            let ruled = try directory.write("\(rule).yaml", text.replacingOccurrences(of: "delete: cascade", with: "delete: \(rule)"))
            for day in ["1", "2"] {
                #expect(try importer(["run", "--store", store, "--model", ruled, sample("gbfs/station-status-\(day).json")]).status == 0)
            }
            let sync = try importer(["run", "--store", store, "--model", ruled, "--sync", "--format", "json", day3])
            let rows = try vehicles(store)
            switch rule {
            case "cascade":
                #expect(sync.status == 0 && counts(sync, "Station")["deleted"] == 1 && counts(sync, "StationVehicle")["deleted"] == 2, "\(sync.stdout)\(sync.stderr)")
                #expect(!rows.contains { $0.hasPrefix(#""B2""#) } && rows.count == 11, "\(rows)")
                let undo = try importer(["undo", "--store", store, "--last"])
                #expect(undo.status == 0, "\(undo.stderr)")
                #expect(try vehicles(store).filter { $0.hasPrefix(#""B2""#) } == [#""B2","bike",4"#, #""B2","ebike",2"#])
            case "deny":
                #expect(sync.status == 65 && sync.stderr.contains("still have 2 StationVehicle record(s)") && sync.stderr.contains("'vehicles'"),
                        "\(sync.stdout)\(sync.stderr)")
                #expect(rows.count == 13, "nothing written: \(rows)")
            default:
                #expect(sync.status == 0 && counts(sync, "StationVehicle")["deleted"] == 0, "\(sync.stdout)\(sync.stderr)")
                #expect(rows.filter { $0.hasPrefix(#""B2""#) }.count == 2, "\(rows)")
            }
        }
    }

    /// A bad child is rejected where it is (its parent's place, the array, its own place), and it
    /// rejects its parent: the station keeps its stored values and all its stored children (a
    /// child not read is never deleted), and its reject names the child. A rejected parent's
    /// children are not written (counted in a warning), so no child outlives its parent.
    @Test func aBadRecordNeverCostsAChild() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite")
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-1.json")]).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample("gbfs/station-status-2.json")))) as? [String: Any])
        var data = try #require(document["data"] as? [String: Any])
        data["stations"] = (data["stations"] as? [[String: Any]] ?? []).map { station -> [String: Any] in
            var station = station
            if station["station_id"] as? String == "C3", var list = station["vehicle_types_available"] as? [[String: Any]] {
                list[0]["count"] = "many"
                station["vehicle_types_available"] = list
            }
            if station["station_id"] as? String == "E5" { station["num_bikes_available"] = "lots" }
            return station
        }
        document["data"] = data
        let feed = try directory.write("bad.json", String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
        // `check` reads the children as `run` does: the bad child is named before any run.
        let checked = try importer(["check", "--model", Self.model, feed])
        #expect(checked.status == 65 && checked.stdout.contains("10 record(s) of StationVehicle (mapping station-status/vehicles, json): 9 would be imported, 1 rejected"),
                "\(checked.stdout)\(checked.stderr)")
        let refused = try importer(["run", "--store", store, "--model", Self.model, feed])
        #expect(refused.status == 65, "\(refused.stderr)")
        let rejects = directory.path("rejects.ndjson")
        let run = try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "5", "--rejects", rejects, "--format", "json", feed])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("/data/stations/5/vehicle_types_available/0/count"), "located: \(run.stdout)")
        // Read twice (the bad child is met after its station was written), said once.
        #expect(run.stderr.components(separatedBy: "not written: their parent record was rejected").count == 2, "\(run.stderr)")
        let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3 && lines[2].contains(#""entity":"Station""#) && lines[2].contains(#""record":5"#), "each reject once: \(lines)")
        // A pipe cannot be emptied before the second reading: it gets each reject once all the same.
        let piped = try importer(["-c", #"mkfifo "$1/pipe" && (cat "$1/pipe" > "$1/piped.ndjson" &) && "$2" run --dry-run --store "$3" --model "$4" --max-rejects 5 --rejects "$1/pipe" "$5""#,
                                  "sh", directory.path(""), importerBinary, store, Self.model, feed], launcher: ["/bin/sh"])
        #expect(piped.status == 0, "\(piped.stderr)")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try String(contentsOfFile: directory.path("piped.ndjson"), encoding: .utf8).split(separator: "\n") == lines)
        #expect(run.stdout.contains("4 StationVehicle record(s) not written: their parent record was rejected"), "E5's and C3's: \(run.stdout)")
        #expect(run.stdout.contains("rejected with its children: its StationVehicle.count was rejected (expected a number)"), "\(run.stdout)")
        let rows = try Self.vehicles(store)
        #expect(rows.filter { $0.hasPrefix(#""C3""#) } == [#""C3","bike",0"#, #""C3","cargo",1"#, #""C3","ebike",0"#], "C3's children kept: \(rows)")
        #expect(!rows.contains { $0.hasPrefix(#""E5""#) }, "\(rows)")
        #expect(Self.counts(run, "StationVehicle")["deleted"] == 1 && Self.counts(run, "StationVehicle")["rejected"] == 1, "only G7's: \(run.stdout)")
        #expect(Self.counts(run, "Station")["rejected"] == 2 && Self.counts(run, "Station")["updated"] == 2, "E5 and C3 rejected, B2 and G7 updated: \(run.stdout)")
        let c3 = try importer(["query", "--store", store, "--format", "csv", "SELECT num_bikes_available FROM station WHERE station_id = 'C3'"])
        #expect(c3.stdout.split(separator: "\r\n").last == "1", "C3 keeps its stored value: \(c3.stdout)")
    }

    /// Children without a natural key are keyed by their place, as the model says; the model check
    /// names a child key that is not the parent's key then the child's own, a `children` entry
    /// that is not a relationship, and children of a format not read yet.
    @Test func positionKeysAndModelProblems() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try directory.write("alerts.yaml", """
            entities:
            - name: Route
              key: [route]
              attributes:
              - {name: route, type: text, required: true}
              relationships:
              - {name: notes, entity: Note, records: /notes, key: position}
            - name: Note
              key: [route, position]
              attributes:
              - {name: route, type: text, required: true}
              - {name: position, type: integer, required: true}
              - {name: text, type: text}
            feeds:
            - name: routes
              entity: Route
              format: json
              fields:
              - {attribute: route, field: id}
              children:
              - relationship: notes
                fields:
                - {attribute: text, field: text}
            """)
        #expect(try importer(["model", "check", model]).status == 0)
        let store = directory.path("r.sqlite")
        let first = try directory.write("1.json", #"[{"id": "r1", "notes": [{"text": "detour"}, {"text": "late"}]}, {"id": "r2", "notes": []}]"#)
        #expect(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let second = try directory.write("2.json", #"[{"id": "r1", "notes": [{"text": "late"}, {"text": "detour"}, {"text": "closed"}]}, {"id": "r2", "notes": []}]"#)
        let run = try importer(["run", "--store", store, "--model", model, "--max-updated", "100%", "--format", "json", second])
        #expect(Self.counts(run, "Note")["updated"] == 2 && Self.counts(run, "Note")["inserted"] == 1, "a moved note is an update: \(run.stdout)\(run.stderr)")
        let rows = try importer(["query", "--store", store, "--format", "csv", "SELECT route, position, text FROM note ORDER BY position"])
        #expect(rows.stdout.split(separator: "\r\n").dropFirst() == [#""r1",0,"late""#, #""r1",1,"detour""#, #""r1",2,"closed""#], "\(rows.stdout)")

        let text = try String(contentsOfFile: model, encoding: .utf8)
        let cases = [
            ("key: [route, position]", "key: [position]", "must be its parent's key then its own, (route, position)"),
            ("- relationship: notes", "- relationship: remarks", "children 'remarks' is not a relationship of Route"),
            ("format: json", "format: csv", "children 'notes' need a json, ndjson or xml feed"),
        ]
        for (index, (from, to, message)) in cases.enumerated() {
            let broken = try directory.write("broken-\(index).yaml", text.replacingOccurrences(of: from, with: to))
            let check = try importer(["model", "check", broken])
            #expect(check.status == 78 && check.stderr.contains(message), "\(check.stdout)\(check.stderr)")
        }
    }

    /// `model suggest` proposes a child entity for an array of objects in the records: keyed by
    /// the parent's key and a field unique within each parent (an identifier), or by position,
    /// flagged, when none is; the suggested model imports both snapshots with the counts above.
    @Test func suggestProposesChildEntities() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let suggested = try importer(["model", "suggest", sample("gbfs/station-status-1.json")])
        #expect(suggested.status == 0, "\(suggested.stderr)")
        #expect(suggested.stdout.contains("key: [station_id, vehicle_type_id]") && suggested.stdout.contains("records: \"/vehicle_types_available\"")
                && suggested.stdout.contains("      field: vehicle_type_id  # bike"), "\(suggested.stdout)")
        let model = try directory.write("gbfs.yaml", suggested.stdout)
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", model, sample("gbfs/station-status-1.json")]).status == 0)
        let second = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("gbfs/station-status-2.json")])
        #expect(Self.counts(second, "VehicleTypesAvailable") == ["inserted": 2, "updated": 1, "deleted": 2, "unchanged": 9, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(second.stdout)\(second.stderr)")

        let notes = try directory.write("routes.json", #"[{"id": "r1", "notes": [{"text": "detour", "level": 2}, {"text": "detour", "level": 1}]}, {"id": "r2", "notes": [{"text": "late", "level": 1}]}]"#)
        let positional = try importer(["model", "suggest", notes])
        #expect(positional.stdout.contains("key: position") && positional.stdout.contains("key: [source_id, position]")
                && positional.stdout.contains("WARNING: Note: no identifier is unique within each"), "\(positional.stdout)")
        let checked = try importer(["model", "check", try directory.write("routes.yaml", positional.stdout)])
        #expect(checked.status == 0, "\(checked.stderr)")
    }

    /// IANA-style `<xref type data>` elements as child records: type and data stay paired when
    /// one element lacks an attribute, a re-ordered list is no change; a record left without an
    /// xref has an empty list (its references deleted) while a document with no xref at all keeps
    /// every stored reference, and says why.
    @Test func repeatedXMLElementsAreChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.xrefs(store: directory.path("iana.sqlite"), directory: directory)
    }

    @Test func repeatedXMLElementsAreChildrenOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.xrefs(store: try PostgresTestCluster.start().newStoreURL(), directory: directory)
    }

    static func xrefs(store: String, directory: TemporaryDirectory) throws {
        let model = sample("models/iana-xrefs.yaml")
        func references() throws -> [Substring] {
            try importer(["query", "--store", store, "--format", "csv", "SELECT number, data, type FROM protocol_reference ORDER BY number, data"])
                .stdout.split(separator: "\r\n").dropFirst().map { $0 }
        }
        let first = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("xml/iana-xrefs-1.xml")])
        #expect(first.status == 0 && counts(first, "ProtocolReference")["inserted"] == 7, "\(first.stdout)\(first.stderr)")
        let firstRows = try references()
        #expect(firstRows.contains(#"17,"Jon_Postel","#), "the xref without a type keeps its data: \(firstRows)")
        // TCP's two re-ordered (no change), UDP's Jon_Postel typed (an update), ESP's rfc4305 gone, Ethernet's first.
        let second = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("xml/iana-xrefs-2.xml")])
        #expect(counts(second, "ProtocolReference") == ["inserted": 1, "updated": 1, "deleted": 1, "unchanged": 5, "rejected": 0, "duplicates": 0, "rekeyed": 0],
                "\(second.stdout)\(second.stderr)")
        let secondRows = try references()
        #expect(secondRows == [#"1,"rfc792","rfc""#, #"6,"Postel","person""#, #"6,"rfc9293","rfc""#, #"17,"Jon_Postel","person""#,
                                     #"17,"rfc768","rfc""#, #"50,"rfc4303","rfc""#, #"143,"rfc7042","rfc""#])
        let text = try String(contentsOfFile: sample("xml/iana-xrefs-2.xml"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let noESP = try directory.write("no-esp.xml", lines.filter { !$0.contains("rfc4303") }.joined(separator: "\n"))
        let emptied = try importer(["run", "--store", store, "--model", model, "--format", "json", noESP])
        let afterEmptied = try references()
        #expect(counts(emptied, "ProtocolReference")["deleted"] == 1 && !afterEmptied.contains { $0.hasPrefix("50,") }, "\(emptied.stdout)")
        let none = try directory.write("none.xml", lines.filter { !$0.contains("<xref") }.joined(separator: "\n"))
        let kept = try importer(["run", "--store", store, "--model", model, "--format", "json", none])
        #expect(kept.status == 0 && counts(kept, "ProtocolReference")["deleted"] == 0, "\(kept.stdout)\(kept.stderr)")
        #expect(kept.stdout.contains("no record has a child element at /default:xref: the stored ProtocolReference records are kept"), "\(kept.stdout)")
        let afterNone = try references()
        #expect(afterNone.count == 6, "\(afterNone)")
    }

    /// Children of children: an order's lines and each line's parts, keyed (order, sku) and
    /// (order, sku, part); re-ordered lists are no change, an edit one update, and a line its
    /// order no longer lists takes its parts with it (cascade), in one run without --sync.
    @Test func childrenOfChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = sample("models/orders-lines-parts.yaml")
        #expect(try importer(["model", "check", model]).status == 0)
        let store = directory.path("orders.sqlite")
        let first = try directory.write("1.json", #"[{"id": "o1", "lines": [{"sku": "a", "qty": 1, "parts": [{"part": "x", "n": 2}, {"part": "y", "n": 1}]}, {"sku": "b", "qty": 2, "parts": []}]}, {"lines": [{"parts": [{"n": 1, "part": "w"}], "sku": "a", "qty": 5}], "id": "o2"}]"#)
        let one = try importer(["run", "--store", store, "--model", model, "--format", "json", first])
        #expect(Self.counts(one, "Line")["inserted"] == 3 && Self.counts(one, "Part")["inserted"] == 3, "\(one.stdout)\(one.stderr)")
        let second = try directory.write("2.json", #"[{"id": "o1", "lines": [{"sku": "b", "qty": 2, "parts": [{"part": "z", "n": 1}]}, {"sku": "a", "qty": 1, "parts": [{"part": "y", "n": 1}, {"part": "x", "n": 3}]}]}, {"id": "o2", "lines": []}]"#)
        let two = try importer(["run", "--store", store, "--model", model, "--max-delete", "100%", "--max-updated", "100%", "--format", "json", second])
        #expect(Self.counts(two, "Line") == ["inserted": 0, "updated": 0, "deleted": 1, "unchanged": 2, "rejected": 0, "duplicates": 0, "rekeyed": 0], "\(two.stdout)\(two.stderr)")
        #expect(Self.counts(two, "Part") == ["inserted": 1, "updated": 1, "deleted": 1, "unchanged": 1, "rejected": 0, "duplicates": 0, "rekeyed": 0], "\(two.stdout)\(two.stderr)")
        let parts = try importer(["query", "--store", store, "--format", "csv", "SELECT order_id, sku, part, n FROM part ORDER BY order_id, sku, part"])
        #expect(parts.stdout.split(separator: "\r\n").dropFirst() == [#""o1","a","x",3"#, #""o1","a","y",1"#, #""o1","b","z",1"#], "\(parts.stdout)")
        let again = try importer(["run", "--store", store, "--model", model, second])
        #expect(again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
    }

    /// A consumer of the children alone is delivered each run's child changes (the snapshot's
    /// deletes with their tombstones included) and nothing of the parents.
    @Test func deliverHandsOnChildChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("gbfs.sqlite")
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-1.json")]).status == 0)
        #expect(try importer(["consumers", "add", "fleet", "--entity", "StationVehicle", "--from", "now", "--store", store]).status == 0)
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("gbfs/station-status-2.json")]).status == 0)
        let received = directory.path("received.json")
        let delivered = try importer(["deliver", "--consumer", "fleet", "--exec", "cat >> '\(received)'", "--store", store])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let body = (try? String(contentsOfFile: received, encoding: .utf8)) ?? ""
        let changes = body.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        #expect(changes.map { "\($0["entity"] ?? "") \($0["type"] ?? "")" }.sorted()
                == ["StationVehicle delete", "StationVehicle delete", "StationVehicle insert", "StationVehicle insert", "StationVehicle update"], "\(body)")
        #expect(body.contains("\"cargo\""), "the tombstone names the deleted child: \(body)")
        let parents = changes.compactMap { $0["parent"] as? [String: Any] }
        #expect(parents.count == 5 && parents.allSatisfy { $0["entity"] as? String == "Station" && $0["relationship"] as? String == "vehicles" }, "\(body)")
    }
}
