import Foundation
import ImporterTestSupport
import Testing

/// The contract for fields a feed holds and its mapping does not read (issue 45.5): `warn` (the
/// default) says each the run it first appears, once; `fail` refuses the run (65) with the store
/// untouched; `ignore` says nothing. Children's lists are not unmapped.
@Suite struct UnmappedFieldsTests {
    static let model = sample("models/usgs-geojson.yaml")

    static func warnings(_ run: Execution) -> [String] {
        ((run.json as? [String: Any])?["warnings"] as? [String] ?? []).filter { $0.contains("is not mapped") }
    }

    @Test func aNewFieldIsSaidTheRunItAppears() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("q.sqlite")
        let first = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", sample("geojson/usgs-day-1.geojson")])
        #expect(first.status == 0 && Self.warnings(first).contains { $0.contains("field '/properties/tsunami' (first in record 1) is not mapped by feed mapping usgs") },
                "\(first.stdout)")
        let second = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", sample("geojson/usgs-day-2.geojson")])
        #expect(second.status == 0 && Self.warnings(second).isEmpty, "the same fields are not said again: \(second.stdout)")
        // Upstream adds `alertlevel` from the third feature on.
        let text = try String(contentsOfFile: sample("geojson/usgs-day-2.geojson"), encoding: .utf8)
        var parts = text.components(separatedBy: #""tsunami""#)
        for index in parts.indices.dropFirst(3) { parts[index - 1] += #""alertlevel": "green", "# }
        let added = try directory.write("day-2-alert.geojson", parts.joined(separator: #""tsunami""#))
        let third = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", added])
        #expect(third.status == 0 && Self.warnings(third) == ["\(added): field '/properties/alertlevel' (first in record 3) is not mapped by feed mapping usgs (new; unmapped: warn)"],
                "\(third.stdout)")
        #expect(third.stderr.contains("/properties/alertlevel"), "logged on standard error too")
        // `fail`: refused, nothing written; `ignore`: silent.
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let failing = try directory.write("fail.yaml", try String(contentsOfFile: Self.model, encoding: .utf8)
            .replacingOccurrences(of: "  format: json\n", with: "  format: json\n  unmapped: fail\n"))
        #expect(try importer(["model", "check", failing]).status == 0)
        let refused = try importer(["run", "--store", store, "--model", failing, sample("geojson/usgs-day-1.geojson")])
        #expect(refused.status == 65 && refused.stderr.contains("is not mapped by feed mapping usgs") && refused.stderr.contains("unmapped: fail"), "\(refused.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history)
        let ignoring = try directory.write("ignore.yaml", try String(contentsOfFile: Self.model, encoding: .utf8)
            .replacingOccurrences(of: "  format: json\n", with: "  format: json\n  unmapped: ignore\n"))
        let fresh = directory.path("fresh.sqlite")
        let silent = try importer(["run", "--store", fresh, "--model", ignoring, "--format", "json", sample("geojson/usgs-day-1.geojson")])
        #expect(silent.status == 0 && Self.warnings(silent).isEmpty, "\(silent.stdout)")
        // check lists them all, whatever a store has met.
        let check = try importer(["check", "--model", Self.model, sample("geojson/usgs-day-1.geojson")])
        #expect(check.stdout.contains("field '/properties/tsunami'") && check.stdout.contains("field '/geometry/type'"), "\(check.stdout)")
    }

    /// A renamed CSV column is said twice over: the mapped column is missing, the new one unmapped.
    /// A child entity's list is read by its mapping, so it is not unmapped.
    @Test func csvColumnsAndChildLists() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let renamed = try directory.write("renamed.csv", try String(contentsOfFile: sample("csv/cneos-fireball-2024.csv"), encoding: .utf8)
            .replacingOccurrences(of: "\"Altitude (km)\"", with: "\"Altitude (m)\""))
        let run = try importer(["run", "--store", directory.path("c.sqlite"), "--model", sample("models/cneos-csv.yaml"), "--format", "json", renamed])
        #expect(Self.warnings(run) == ["\(renamed): field 'Altitude (m)' (first in record 1) is not mapped by feed mapping cneos-csv (new; unmapped: warn)"],
                "\(run.stdout)\(run.stderr)")
        let stations = try importer(["run", "--store", directory.path("g.sqlite"), "--model", sample("models/gbfs-station-status.yaml"), "--format", "json",
                                     sample("gbfs/station-status-1.json")])
        #expect(stations.status == 0 && !stations.stdout.contains("/vehicle_types_available' ("), "\(stations.stdout)")
    }
}

/// XML: an element of the records that no field reads is said like a JSON member; elements read
/// under a predicate and a relationship's child elements are not unmapped.
@Suite struct UnmappedElementsTests {
    @Test func anAtomEntrysNewElementIsSaid() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = sample("models/usgs-earthquakes-atom.yaml")
        let store = directory.path("a.sqlite")
        let first = try importer(["run", "--store", store, "--model", model, "--format", "json", sample("xml/usgs-earthquakes.atom")])
        #expect(UnmappedFieldsTests.warnings(first).map { $0.components(separatedBy: ": ").dropFirst().joined(separator: ": ") }
                == ["field '/summary' (first in record 1) is not mapped by feed mapping usgs-atom (new; unmapped: warn)"], "\(first.stdout)")
        let text = try String(contentsOfFile: sample("xml/usgs-earthquakes-2.atom"), encoding: .utf8)
        var parts = text.components(separatedBy: "</entry>")
        parts[1] = parts[1] + "<georss:featuretypetag>earthquake</georss:featuretypetag>"
        let added = try directory.write("added.atom", parts.joined(separator: "</entry>"))
        let second = try importer(["run", "--store", store, "--model", model, "--format", "json", added])
        #expect(second.status == 0 && UnmappedFieldsTests.warnings(second) == ["\(added): field '/featuretypetag' (first in record 2) is not mapped by feed mapping usgs-atom (new; unmapped: warn)"],
                "\(second.stdout)\(second.stderr)")
        let xrefs = try importer(["check", "--model", sample("models/iana-xrefs.yaml"), sample("xml/iana-xrefs-1.xml")])
        #expect(!xrefs.stdout.contains("is not mapped"), "the xref children are read by their mapping: \(xrefs.stdout)")
    }
}
