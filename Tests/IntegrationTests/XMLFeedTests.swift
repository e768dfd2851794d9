import ImporterTestSupport
import Foundation
import Testing

/// Namespaced XML in the shapes of real feeds (`SampleData/xml`): the IANA protocol-numbers
/// registry (a default namespace, repeated `<xref>`) and the USGS earthquake feed as Atom
/// (`<georss:point>`, `<category label=… term=…>` ×4), imported, re-imported with `--sync`, and
/// read back with `export`.
@Suite struct XMLFeedTests {
    /// The exported rows of the store, as one line each: `attributes` in order, JSON-encoded.
    private func exported(_ store: String, _ attributes: [String]) throws -> [String] {
        let export = try importer(["export", "--store", store, "--format", "json"])
        try #require(export.status == 0, "\(export.stderr)")
        let rows = try #require(export.json as? [[String: Any]])
        return try rows.map { row in
            try attributes.map { name in
                let value = try #require(row[name], "\(name) missing from \(row)")
                return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
            }.joined(separator: " | ")
        }
    }

    private func transactionCount(_ store: String) throws -> Int {
        let history = try importer(["history", "--store", store, "--format", "json"])
        return ((history.json as? [String: Any])?["transactions"] as? [[String: Any]])?.count ?? -1
    }

    static let protocolColumns = ["number", "name", "description", "rfcs", "people", "first_reference", "second_reference", "first_type", "last_reference"]

    @Test func theIANARegistryWithRepeatedReferences() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = sample("models/iana-protocol-numbers.yaml")
        #expect(try importer(["model", "check", model]).status == 0)
        let first = try importer(["run", "--store", store, "--model", model, sample("xml/iana-protocol-numbers.xml")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Protocol: 7 inserted, 0 updated, 0 deleted, 0 unchanged, 0 duplicates, 0 rejected"), "\(first.stdout)")
        #expect(try exported(store, Self.protocolColumns) == [
            #"1 | "ICMP" | "Internet Control Message" | "rfc792" | null | "rfc792" | null | "rfc" | "rfc792""#,
            #"6 | "TCP" | "Transmission Control" | "rfc9293" | "[\"Postel\"]" | "rfc9293" | "Postel" | "rfc" | "Postel""#,
            #"17 | "UDP" | "User Datagram" | "rfc768" | "[\"Jon_Postel\"]" | "rfc768" | "Jon_Postel" | "rfc" | "Jon_Postel""#,
            #"41 | "IPv6" | "IPv6 encapsulation" | "rfc2473" | null | "rfc2473" | null | "rfc" | "rfc2473""#,
            #"43 | "IPv6-Route" | "Routing Header for IPv6" | null | "[\"Steve_Deering\"]" | "Steve_Deering" | null | "person" | "Steve_Deering""#,
            #"50 | "ESP" | "Encap Security Payload" | "rfc4303 rfc4305" | null | "rfc4303" | "rfc4305" | "rfc" | "rfc4305""#,
            #"143 | "Ethernet" | "" | "rfc8986" | null | "rfc8986" | null | "rfc" | "rfc8986""#,
        ])
        let sync = try importer(["run", "--store", store, "--model", model, "--sync", sample("xml/iana-protocol-numbers-2.xml")])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Protocol: 1 inserted, 1 updated, 1 deleted, 5 unchanged, 0 duplicates, 0 rejected"), "\(sync.stdout)")
        let after = try exported(store, Self.protocolColumns)
        #expect(after.count == 7)
        #expect(!after.contains { $0.hasPrefix("17 |") })
        #expect(after.contains(#"6 | "TCP" | "Transmission Control" | "rfc9293" | "[\"Postel\",\"Eddy\"]" | "rfc9293" | "Postel" | "rfc" | "Eddy""#))
        #expect(after.contains(#"144 | "AGGFRAG" | "AGGFRAG encapsulation payload for ESP" | "rfc9347" | null | "rfc9347" | null | "rfc" | "rfc9347""#))
    }

    @Test func theUSGSAtomFeedWithCategoriesAndGeoRSS() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = sample("models/usgs-earthquakes-atom.yaml")
        let columns = ["event_id", "title", "updated", "point", "elevation", "magnitude", "contributors", "categories", "link"]
        let first = try importer(["run", "--store", store, "--model", model, sample("xml/usgs-earthquakes.atom")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Earthquake: 3 inserted, 0 updated, 0 deleted, 0 unchanged, 0 duplicates, 0 rejected"), "\(first.stdout)")
        let rows = try exported(store, columns).sorted()
        #expect(rows == [
            #""urn:earthquake-usgs-gov:ak:026c4kd3" | "M 4.5 - 80 km SE of Sand Point, Alaska" | "2026-03-06T12:02:44.300Z" | "54.8101 -159.6420" | -22400 | "Magnitude 4.5" | "us,ak" | "[\"Age\",\"Magnitude\",\"Contributor\",\"Contributor\",\"Author\"]" | "https:\/\/earthquake.usgs.gov\/earthquakes\/eventpage\/ak026c4kd3""#,
            #""urn:earthquake-usgs-gov:us:7000p19z" | "M 5.1 - 112 km E of Kuril'sk, Russia" | "2026-03-06T16:20:11.510Z" | "45.5912 149.2617" | -58120 | "Magnitude 5" | "us" | "[\"Age\",\"Magnitude\",\"Contributor\",\"Author\"]" | "https:\/\/earthquake.usgs.gov\/earthquakes\/eventpage\/us7000p19z""#,
            #""urn:earthquake-usgs-gov:us:7000p1a2" | "M 4.6 - 45 km SSW of Hihifo, Tonga" | "2026-03-06T17:58:40.040Z" | "-16.3478 -174.0563" | -35000 | "Magnitude 4.5" | "us" | "[\"Age\",\"Magnitude\",\"Contributor\",\"Author\"]" | "https:\/\/earthquake.usgs.gov\/earthquakes\/eventpage\/us7000p1a2""#,
        ])
        let sync = try importer(["run", "--store", store, "--model", model, "--sync", sample("xml/usgs-earthquakes-2.atom")])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Earthquake: 1 inserted, 1 updated, 1 deleted, 1 unchanged, 0 duplicates, 0 rejected"), "\(sync.stdout)")
        let after = try exported(store, ["event_id", "title", "point", "elevation", "magnitude"]).sorted()
        #expect(after == [
            #""urn:earthquake-usgs-gov:ak:026c4kd3" | "M 4.5 - 80 km SE of Sand Point, Alaska" | "54.8101 -159.6420" | -22400 | "Magnitude 4.5""#,
            #""urn:earthquake-usgs-gov:us:7000p1a2" | "M 4.7 - 44 km SSW of Hihifo, Tonga" | "-16.3501 -174.0498" | -33500 | "Magnitude 4.5""#,
            #""urn:earthquake-usgs-gov:us:7000p1b7" | "M 4.8 - 20 km NNE of Port-Olry, Vanuatu" | "-14.8720 167.1032" | -120000 | "Magnitude 4.5""#,
        ])
    }

    @Test func aRecordsPathWithoutTheDefaultNamespaceIsAnInputError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let good = sample("models/iana-protocol-numbers.yaml")
        try #require(try importer(["run", "--store", store, "--model", good, sample("xml/iana-protocol-numbers.xml")]).status == 0)
        let before = try importer(["export", "--store", store]).stdout
        let transactions = try transactionCount(store)
        // The model as a newcomer writes it from an unprefixed reading of the document.
        var text = try String(contentsOfFile: good, encoding: .utf8)
        text = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("namespaces:") }.joined(separator: "\n")
        for (old, new) in [("records: /r:registry/r:record", "records: /registry/record"), ("field: r:", "field: "),
                           ("field: \"r:", "field: \""), ("field: 'r:", "field: '")] {
            text = text.replacingOccurrences(of: old, with: new)
        }
        let model = directory.path("unprefixed.yaml")
        try text.write(toFile: model, atomically: true, encoding: .utf8)
        #expect(try importer(["model", "check", model]).status == 0)
        let run = try importer(["run", "--store", store, "--model", model, "--sync", sample("xml/iana-protocol-numbers-2.xml")])
        #expect(run.status == 65, "\(run.status): \(run.stderr)")
        #expect(run.stderr.contains("""
            records '/registry/record' matches no element: the root element is {http://www.iana.org/assignments}registry \
            (default namespace http://www.iana.org/assignments); declare it, e.g. namespaces: {r: "http://www.iana.org/assignments"}, \
            and write records: /r:registry/r:record
            """), "\(run.stderr)")
        #expect(run.stderr.contains("iana-protocol-numbers-2.xml:3:"), "\(run.stderr)")
        #expect(try importer(["export", "--store", store]).stdout == before)
        #expect(try transactionCount(store) == transactions)
    }

    @Test func modelCheckRefusesBadXMLPathsNamingTheField() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let text = try String(contentsOfFile: sample("models/iana-protocol-numbers.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "r:xref[1]/@data", with: "r:xref[first()]/@data")
            .replacingOccurrences(of: "field: r:description", with: "field: d:description")
        let model = directory.path("bad.yaml")
        try text.write(toFile: model, atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", model, "--format", "json"])
        #expect(check.status == 78)
        let problems = try #require((check.json as? [String: Any])?["problems"] as? [String])
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.contains("feed iana-protocol-numbers: attribute 'first_reference': field 'r:xref[first()]/@data': '[first()]' is not a predicate") })
        #expect(problems.contains { $0.contains("attribute 'description': field 'd:description': the namespace prefix 'd' is not declared") })
        // A run with that model stops before reading anything: a configuration error.
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--model", model, sample("xml/iana-protocol-numbers.xml")])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }
}
