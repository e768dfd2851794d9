import ImporterTestSupport
import Foundation
import Testing

/// `importer model suggest` end to end: the suggested model passes `model check`, imports its
/// sample feeds with no reject, keyed and typed as the tests expect, and a later snapshot synced
/// through it gives the counts computed by hand.
@Suite struct ModelSuggestTests {
    /// Suggests a model for `feeds` into `directory`, checks it and imports the first feed with it.
    private func suggestAndImport(_ feeds: [String], in directory: TemporaryDirectory, extra: [String] = []) throws -> (model: String, store: String, yaml: String) {
        let suggest = try importer(["model", "suggest"] + extra + feeds.map { sample("suggest/\($0)") })
        #expect(suggest.status == 0, "\(suggest.stderr)")
        let model = try directory.write("suggested.yaml", suggest.stdout)
        let check = try importer(["model", "check", model])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)\n\(suggest.stdout)")
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--model", model, "--format", "json"] + extra.filter { $0 != "--sample" } + [sample("suggest/\(feeds[0])")])
        #expect(run.status == 0, "\(run.stderr)\n\(suggest.stdout)")
        let totals = (run.json as? [String: Any])?["totals"] as? [String: Any]
        #expect(totals?["rejected"] as? Int == 0, "\(run.stdout)")
        return (model, store, suggest.stdout)
    }

    /// The rows of `sql` as JSON objects.
    private func rows(_ store: String, _ sql: String) throws -> [[String: Any]] {
        let result = try importer(["query", "--store", store, "--format", "json", sql])
        #expect(result.status == 0, "\(result.stderr)")
        return result.json as? [[String: Any]] ?? []
    }

    private func count(_ store: String, _ table: String) throws -> Int? {
        try rows(store, "SELECT count(*) AS n FROM \(table)").first?["n"] as? Int
    }

    @Test
    func geoJSONImportsKeyedOnTheFeatureIdAndSyncsTheNextSnapshot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (model, store, yaml) = try suggestAndImport(["quakes-day1.geojson", "quakes-day2.geojson"], in: directory)
        #expect(yaml.contains("key: [feature_id]"))
        #expect(try count(store, "feature") == 5)
        let row = try #require(try rows(store, "SELECT time, coordinates_0 AS x, coordinates_1 AS y, coordinates_2 AS z, mag FROM feature WHERE feature_id = 'us7000abcd'").first)
        #expect((row["time"] as? String)?.hasPrefix("2020-03-06 17:42:58") == true, "\(row)")
        #expect(row["x"] as? Double == -155.2 && row["y"] as? Double == 19.4 && row["z"] as? Double == 10.5 && row["mag"] as? Double == 4.5, "\(row)")
        // Day 2: ci39012345 gone; us7000abcd re-measured, us7000abce moved; two new events.
        let sync = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json", sample("suggest/quakes-day2.geojson")])
        #expect(sync.status == 0, "\(sync.stderr)")
        let totals = try #require((sync.json as? [String: Any])?["totals"] as? [String: Any])
        #expect(totals["inserted"] as? Int == 2)
        #expect(totals["updated"] as? Int == 2)
        #expect(totals["deleted"] as? Int == 1)
        #expect(totals["rejected"] as? Int == 0)
        #expect(try rows(store, "SELECT coordinates_0 AS x FROM feature WHERE feature_id = 'us7000abce'").first?["x"] as? Double == 178.15)
    }

    /// A `;`-separated Windows-1252 export: the suggestion says its dialect, imports it with every
    /// value as in the file, and a re-import with `--sync` changes nothing.
    @Test
    func aCSVDialectIsDetectedAndTheSuggestionImportsItsFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = directory.path("pegel_2025-12-01.csv")
        try Data(Array("Messstelle;Name;Pegel\r\n001;M".utf8) + [0xFC] + Array("nchen;1,5\r\n002;K".utf8) + [0xF6] + Array("ln ".utf8) + [0x96]
                 + Array(" Rhein;2,5\r\n".utf8)).write(to: URL(fileURLWithPath: feed))
        let suggest = try importer(["model", "suggest", feed])
        #expect(suggest.status == 0, "\(suggest.stderr)")
        #expect(suggest.stdout.contains("csv:\n    delimiter: \";\"\n    encoding: windows-1252"), "\(suggest.stdout)")
        #expect(suggest.stdout.contains("- name: Pegel\n") && suggest.stdout.contains("table: pegel\n"), "named without its date: \(suggest.stdout)")
        #expect(suggest.stdout.components(separatedBy: "required: true").count == 2, "only the key is required: \(suggest.stdout)")
        let model = try directory.write("suggested.yaml", suggest.stdout)
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", model, feed]).status == 0)
        #expect(try rows(store, "SELECT name FROM pegel ORDER BY messstelle").compactMap { $0["name"] as? String } == ["München", "Köln – Rhein"])
        #expect(try rows(store, "SELECT sum(pegel) AS total FROM pegel").first?["total"] as? Double == 4.0, "decimal commas read as numbers")
        let again = try importer(["run", "--store", store, "--model", model, "--sync", "--exit-code", feed])
        #expect(again.status == 1 && again.stdout.contains("No changes."), "\(again.stdout)\(again.stderr)")
    }

    @Test
    func ndjsonAndCSVImportWithTheirTimes() throws {
        for (feed, table) in [("quakes.ndjson", "quakes"), ("quakes.csv", "quakes")] {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let (_, store, _) = try suggestAndImport([feed], in: directory)
            let time = try rows(store, "SELECT time FROM \(table) WHERE source_id = 'us7000abcd'").first?["time"] as? String
            #expect(time?.hasPrefix("2020-03-06 17:42:58") == true, "\(feed): \(String(describing: time))")
            #expect(try count(store, table) == 5, "\(feed)")
        }
    }

    @Test func namespacedXMLImportsWithRepeatedElementsAsChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (_, store, yaml) = try suggestAndImport(["protocols.xml"], in: directory)
        #expect(yaml.contains("records: \"/r:registry/r:registry/r:record\""), "\(yaml)")
        #expect(yaml.contains("key: [value]"))
        #expect(yaml.contains("records: \"/r:xref\"") && !yaml.contains("repeated: all"), "the xrefs are child records: \(yaml)")
        #expect(try count(store, "record") == 5)
        let xrefs = try rows(store, "SELECT type, data FROM xref WHERE value = 2 ORDER BY data").map { "\($0["type"] ?? "") \($0["data"] ?? "")" }
        #expect(xrefs == ["person Steve_Deering", "rfc rfc1112"], "each type with its data: \(xrefs)")
        #expect(try rows(store, "SELECT date FROM record WHERE value = 6").first?["date"] as? String == "2021-02-01")
    }

    @Test
    func atomImportsKeyedOnTheEntryIdWithCategoriesByLabel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (_, store, yaml) = try suggestAndImport(["quakes.atom"], in: directory)
        #expect(yaml.contains("key: [entry_id]"))
        let row = try #require(try rows(store, "SELECT updated, magnitude, elev FROM entry WHERE entry_id = 'urn:earthquake-usgs-gov:us:7000abcd'").first)
        #expect(row["updated"] as? String == "2020-03-06 17:52:34.040", "\(row)")
        #expect(row["magnitude"] as? String == "Magnitude 4" && row["elev"] as? Int == -10500, "\(row)")
    }

    @Test func theYAMLShowsSamplesAndNotesAndTheJSONIsTheSameModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let yaml = try importer(["model", "suggest", sample("suggest/quakes-day1.geojson")])
        #expect(yaml.status == 0, "\(yaml.stderr)")
        #expect(yaml.stdout.hasPrefix("# Suggested by importer model suggest from 5 record(s)"))
        #expect(yaml.stdout.contains(#"field: "/properties/time"  # 1583516578620 = 2020-03-06 17:42:58.620 UTC"#))
        #expect(yaml.stdout.contains(#"field: "/properties/place"  # 10 km SSW of Volcano, Hawaii"#))
        let json = try importer(["model", "suggest", "--format", "json", sample("suggest/quakes-day1.geojson")])
        #expect(json.status == 0)
        let shown = try importer(["model", "show", "--format", "json", "--model", try directory.write("m.yaml", yaml.stdout)])
        #expect(shown.stdout == json.stdout)
    }

    @Test func sampleSizeAndErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let few = try importer(["model", "suggest", "--sample", "2", sample("suggest/quakes.csv")])
        #expect(few.stdout.contains("from 5 record(s)") && few.stdout.contains("the key from 2 sampled"), "\(few.stdout)")
        #expect(try importer(["model", "suggest", directory.path("missing.json")]).status == 66)
        let broken = try directory.write("broken.json", "[{\"a\": 1}, {\"a\": ]")
        let bad = try importer(["model", "suggest", broken])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("broken.json:1:"), "\(bad.stderr)")
        let empty = try importer(["model", "suggest", try directory.write("empty.geojson", #"{"type": "FeatureCollection", "features": []}"#)])
        #expect(empty.status == 65)
        #expect(empty.stderr.contains("no array of objects"), "\(empty.stderr)")
        #expect(try importer(["model", "suggest", try directory.write("feed.txt", "{}")]).status == 64)
        let help = try importer(["model", "suggest", "--help"])
        #expect(help.stdout.contains("importer model suggest all_day.geojson > quakes.yaml"))
    }

    /// A Latin-1 export with a preamble, `;`, decimal commas and a totals table after a blank line:
    /// the suggested model imports it straight from the file (the two measurements, their text
    /// intact, their values numbers).
    @Test func anExportWithAPreambleAndASecondTableImportsAsSuggested() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let text = "Stadt Musterstadt - Messwerte\nStand: 01.12.2025\nDatum;Messstelle;Wert\n01.11.2025;Nord;5,3\n02.11.2025;Süd;4,1\n\nSumme;9,4\n"
        try Data(text.unicodeScalars.map { UInt8($0.value) }).write(to: URL(fileURLWithPath: directory.path("messwerte.csv")))
        let suggested = try importer(["model", "suggest", "messwerte.csv"], directory: directory.url)
        #expect(suggested.status == 0, "\(suggested.stderr)")
        for line in [#"delimiter: ";""#, "encoding: windows-1252", "skip-rows: 2", "end: blank-line", "format:\n      decimal: \",\""] {
            #expect(suggested.stdout.contains(line), "\(line): \(suggested.stdout)")
        }
        try Data(suggested.stdout.utf8).write(to: URL(fileURLWithPath: directory.path("model.yaml")))
        let run = try importer(["run", "--store", "s.sqlite", "--model", "model.yaml", "--format", "json", "messwerte.csv"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(((run.json as? [String: Any])?["totals"] as? [String: Any])?["inserted"] as? Int == 2, "\(run.stdout)")
        let rows = try importer(["query", "--store", "s.sqlite", "--format", "csv", "SELECT datum, messstelle, wert FROM messwerte ORDER BY datum"],
                                directory: directory.url)
        #expect(rows.stdout.split(separator: "\r\n") == [#""datum","messstelle","wert""#, #""01.11.2025","Nord",5.3"#, #""02.11.2025","Süd",4.1"#],
                "\(rows.stdout)")
    }

    /// A document holding two arrays of records (a GBFS-style system feed: stations and alerts)
    /// is suggested as two entities and two mappings (the stations' vehicle lists a child entity);
    /// a run naming both imports every record of each, and a re-import with `--sync` changes nothing.
    @Test func everyArrayOfRecordsInADocumentIsItsOwnMapping() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let stations = (1...3).map { index in
            #"{"station_id": "s\#(index)", "name": "Dock \#(index)", "capacity": \#(index * 10), "#
                + #""vehicle_types_available": [{"vehicle_type_id": "bike", "count": \#(index)}]}"#
        }
        let alerts = [#"{"alert_id": "a1", "type": "STATION_CLOSURE", "summary": "Dock 2 closed"}"#,
                      #"{"alert_id": "a2", "type": "SYSTEM_CLOSURE", "summary": "Storm"}"#]
        let document = #"{"last_updated": 1764576000, "ttl": 60, "data": {"stations": ["# + stations.joined(separator: ",")
            + #"], "alerts": ["# + alerts.joined(separator: ",") + "]}}"
        let feed = try directory.write("system.json", document)
        let suggest = try importer(["model", "suggest", feed])
        #expect(suggest.status == 0, "\(suggest.stderr)")
        for line in ["- name: Station\n", "- name: Alert\n", "- name: system-station\n", "- name: system-alert\n",
                     #"records: "/data/stations""#, #"records: "/data/alerts""#, "2 arrays of records",
                     "VehicleTypesAvailable: a child entity, the 3 object(s) of 'vehicle_types_available' in 3 sampled Station record(s)"] {
            #expect(suggest.stdout.contains(line), "\(line): \(suggest.stdout)")
        }
        let model = try directory.write("model.yaml", suggest.stdout)
        #expect(try importer(["model", "check", model]).status == 0)
        let store = directory.path("s.sqlite")
        let unnamed = try importer(["run", "--store", store, "--model", model, feed])
        #expect(unnamed.status == 64 && unnamed.stderr.contains("system-station") && unnamed.stderr.contains("system-alert"), "\(unnamed.stderr)")
        let both = ["--mapping", "system-station", "--mapping", "system-alert"]
        let run = try importer(["run", "--store", store, "--model", model, "--format", "json"] + both + [feed])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(((run.json as? [String: Any])?["totals"] as? [String: Any])?["inserted"] as? Int == 8, "stations, their vehicles, alerts: \(run.stdout)")
        #expect(try count(store, "station") == 3 && count(store, "alert") == 2)
        #expect(try rows(store, "SELECT capacity FROM station WHERE station_id = 's3'").first?["capacity"] as? Int == 30)
        #expect(try rows(store, "SELECT summary FROM alert WHERE alert_id = 'a2'").first?["summary"] as? String == "Storm")
        let again = try importer(["run", "--store", store, "--model", model, "--sync", "--exit-code"] + both + [feed])
        #expect(again.status == 1 && again.stdout.contains("No changes."), "\(again.stdout)\(again.stderr)")
    }

    /// Feeds longer than the sample whose numbers turn real, and which gain a field, after it: the
    /// suggestion (types from every record, XML included) imports each with no reject, and the
    /// stored sums equal those computed here.
    @Test func aSuggestionReadsEveryRecordOfALongFeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let range = 1...1_500
        let mag = { (index: Int) in index <= 1_000 ? "\(index)" : "\(index).5" }
        let ndjson = range.map { index in
            #"{"id": "q\#(index)", "mag": \#(mag(index))"# + (index > 1_200 ? #", "felt": \#(index)}"# : "}")
        }.joined(separator: "\n") + "\n"
        let xml = "<quakes>\n" + range.map { index in
            "<quake id=\"q\(index)\"><mag>\(mag(index))</mag>" + (index > 1_200 ? "<felt>\(index)</felt>" : "") + "</quake>"
        }.joined(separator: "\n") + "\n</quakes>\n"
        let expectedMag = range.reduce(0.0) { $0 + (Double(mag($1)) ?? 0) }
        let expectedFelt = (1_201...1_500).reduce(0, +)
        for (name, text) in [("quakes.ndjson", ndjson), ("quakes.xml", xml)] {
            let feed = try directory.write(name, text)
            let suggest = try importer(["model", "suggest", feed])
            #expect(suggest.status == 0, "\(suggest.stderr)")
            let model = try directory.write(name + ".yaml", suggest.stdout)
            let store = directory.path(name + ".sqlite")
            let run = try importer(["run", "--store", store, "--model", model, "--format", "json", feed])
            #expect(run.status == 0, "\(name): \(run.stderr)\n\(suggest.stdout)")
            let totals = (run.json as? [String: Any])?["totals"] as? [String: Any]
            #expect(totals?["inserted"] as? Int == 1_500 && totals?["rejected"] as? Int == 0, "\(name): \(run.stdout)")
            let table = name.hasSuffix(".xml") ? "quake" : "quakes"
            let sums = try #require(try rows(store, "SELECT sum(mag) AS mag, sum(felt) AS felt FROM \(table)").first, "\(name)")
            #expect(sums["mag"] as? Double == expectedMag && sums["felt"] as? Int == expectedFelt, "\(name): \(sums)")
        }
    }

    /// A repeated XML element with attributes is suggested as a child entity (44.7): IANA's
    /// `<xref type data/>`, keyed by the record and `data` (unique within every record); the
    /// suggested model imports both snapshots with the counts of the hand-written one.
    @Test func aRepeatedElementWithAttributesBecomesAChildEntity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let suggest = try importer(["model", "suggest", sample("xml/iana-xrefs-1.xml")])
        #expect(suggest.status == 0, "\(suggest.stderr)")
        for line in ["Xref: a child entity, the 7 element(s) of 'xrefs' in 4 sampled Record record(s), keyed by (value, data)",
                     "records: \"/r:xref\"", "key: [value, data]", "field: \"@type\"", "field: \"@data\""] {
            #expect(suggest.stdout.contains(line), "\(line): \(suggest.stdout)")
        }
        #expect(!suggest.stdout.contains("repeated: all"), "the pairs stay together: \(suggest.stdout)")
        let model = try directory.write("model.yaml", suggest.stdout)
        func counts(_ model: String, _ store: String) throws -> [String] {
            try ["xml/iana-xrefs-1.xml", "xml/iana-xrefs-2.xml"].map { feed in
                let run = try importer(["run", "--store", store, "--model", model, "--max-delete", "100%", "--format", "json", sample(feed)])
                let totals = (run.json as? [String: Any])?["totals"] as? [String: Int] ?? [:]
                return "\(run.status) \(totals["inserted"] ?? -1)/\(totals["updated"] ?? -1)/\(totals["deleted"] ?? -1)"
            }
        }
        let suggested = try counts(model, directory.path("suggested.sqlite")), written = try counts(sample("models/iana-xrefs.yaml"), directory.path("written.sqlite"))
        #expect(suggested == written && suggested.first?.hasPrefix("0 ") == true, "\(suggested) against \(written)")
    }

    /// Lists inside child records are suggested as children of children (44.7), in XML and JSON;
    /// a child's own identifier named like its parent's key (QuakeML's `publicID` at every level)
    /// is kept under the child's name, and is its key. The suggested QuakeML model imports both
    /// snapshots with the per-entity counts of the hand-written one.
    @Test func listsInsideChildrenBecomeChildrenOfChildren() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let suggest = try importer(["model", "suggest", sample("xml/quakeml-1.xml")])
        #expect(suggest.status == 0, "\(suggest.stderr)")
        for line in ["keyed by (public_id, origin_public_id)", "keyed by (public_id, origin_public_id, arrival_public_id)",
                     "records: \"/q2:arrival\"", "key: [arrival_public_id]", "- attribute: origin_public_id\n      field: \"@publicID\""] {
            #expect(suggest.stdout.contains(line), "\(line): \(suggest.stdout)")
        }
        #expect(!suggest.stdout.contains("repeated: all"), "an arrival's fields stay together: \(suggest.stdout)")
        let model = try directory.write("model.yaml", suggest.stdout)
        func counts(_ model: String, _ store: String) throws -> [String] {
            try ["xml/quakeml-1.xml", "xml/quakeml-2.xml"].map { feed in
                let run = try importer(["run", "--store", store, "--model", model, "--sync", "--max-delete", "100%", "--format", "json", sample(feed)])
                return "\(run.status) " + ["Event", "Origin", "Arrival"].map { entity in
                    let counts = ChildEntityTests.counts(run, entity)
                    return ["inserted", "updated", "deleted", "unchanged"].map { "\(counts[$0] ?? -1)" }.joined(separator: "/")
                }.joined(separator: " ")
            }
        }
        let suggested = try counts(model, directory.path("suggested.sqlite"))
        let written = try counts(sample("models/quakeml-origins.yaml"), directory.path("written.sqlite"))
        #expect(suggested == written && suggested.first == "0 3/0/0/0 4/0/0/0 7/0/0/0", "\(suggested) against \(written)")
        let orders = try directory.write("orders.json", #"[{"id": "o1", "lines": [{"sku": "a", "parts": [{"part": "x", "n": 2}, {"part": "y", "n": 1}]}]}, {"id": "o2", "lines": [{"sku": "a", "parts": [{"part": "x", "n": 1}]}]}]"#)
        let json = try importer(["model", "suggest", orders])
        #expect(json.stdout.contains("Part: a child entity, the 3 object(s) of 'parts' in 2 sampled Line record(s), keyed by (source_id, sku, part)")
                && !json.stdout.contains("not mapped"), "\(json.stdout)")
    }
}
