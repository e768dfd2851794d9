import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ImporterTestSupport
import Testing

/// Children of children in XML (issue 44.1): a QuakeML event list whose events list origins, and
/// origins arrivals (`SampleData/models/quakeml-origins.yaml`). The stored arrivals equal an
/// independent reading of the document (Foundation's XML parser); a re-ordered list is no change;
/// a withdrawn pick one delete; an origin left without arrivals loses them; an event gone under
/// `--sync` takes its origins and arrivals with it; a bad arrival rejects its event, named.
@Suite struct XMLChildrenOfChildrenTests {
    static let model = sample("models/quakeml-origins.yaml")

    /// The document's arrivals as `event origin arrival residual`, read by Foundation's parser.
    final class Arrivals: NSObject, XMLParserDelegate {
        var rows: Set<String> = []
        private var event = "", origin = "", arrival = "", text = "", residual = ""

        static func of(_ path: String) throws -> Set<String> {
            let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
            let reader = Arrivals()
            parser.delegate = reader
            #expect(parser.parse(), "\(path)")
            return reader.rows
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            let id = attributes["publicID"] ?? ""
            switch name {
            case "event": event = id
            case "origin": origin = id
            case "arrival": (arrival, residual) = (id, "")
            default: break
            }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "timeResidual" { residual = text }
            if name == "arrival" { rows.insert("\(event) \(origin) \(arrival) \(Double(residual).map { "\($0)" } ?? "")") }
        }
    }

    static func stored(_ store: String) throws -> Set<String> {
        let csv = try importer(["query", "--store", store, "--format", "csv", "SELECT event_id, origin_id, arrival_id, time_residual FROM arrival"]).stdout
        return Set(csv.split(separator: "\r\n").dropFirst().map { $0.replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: ",", with: " ") })
    }

    static func counts(_ run: Execution, _ entity: String) -> [String] {
        let counts = ChildEntityTests.counts(run, entity)
        return ["inserted", "updated", "deleted", "unchanged"].map { "\(counts[$0] ?? -1)" }
    }

    @Test(arguments: ["sqlite", "postgres"]) func eventsOriginsAndArrivals(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let (day1, day2) = (sample("xml/quakeml-1.xml"), sample("xml/quakeml-2.xml"))
        #expect(try importer(["model", "check", Self.model]).status == 0)
        let first = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", day1])
        #expect(first.status == 0 && Self.counts(first, "Origin") == ["4", "0", "0", "0"], "\(first.stdout)\(first.stderr)")
        let expected1 = try Arrivals.of(day1)
        let stored1 = try Self.stored(store)
        #expect(expected1.count == 7 && stored1 == expected1, "\(stored1)")
        // Day 2 against an independent diff of the two readings: arrivals kept with another
        // residual are updates, missing ones deletes (the quarry blast's with its event).
        let expected2 = try Arrivals.of(day2)
        let ids1 = Dictionary(uniqueKeysWithValues: expected1.map { ($0.split(separator: " ").dropLast().joined(separator: " "), $0) })
        let ids2 = Dictionary(uniqueKeysWithValues: expected2.map { ($0.split(separator: " ").dropLast().joined(separator: " "), $0) })
        let updated = ids2.filter { ids1[$0.key] != nil && ids1[$0.key] != $0.value }.count
        let deleted = ids1.keys.filter { ids2[$0] == nil }.count
        let unchanged = ids2.filter { ids1[$0.key] == $0.value }.count
        let second = try importer(["run", "--store", store, "--model", Self.model, "--sync", "--max-delete", "100%", "--format", "json", day2])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.counts(second, "Arrival") == ["0", "\(updated)", "\(deleted)", "\(unchanged)"] && [updated, deleted, unchanged] == [1, 3, 3],
                "\(second.stdout)")
        #expect(Self.counts(second, "Origin") == ["0", "0", "1", "3"] && Self.counts(second, "Event") == ["0", "0", "1", "2"], "\(second.stdout)")
        #expect(try Self.stored(store) == expected2)
        #expect(try importer(["run", "--store", store, "--model", Self.model, day2]).stdout.hasPrefix("No changes."), "re-ordered arrivals are no change")
        // A residual that is not a number rejects its event with its origins and arrivals, named by
        // line and record; the event keeps what it had.
        let bad = try directory.write("bad.xml", try String(contentsOfFile: day2, encoding: .utf8).replacingOccurrences(of: "<timeResidual>0.61<", with: "<timeResidual>n/a<"))
        let rejected = try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "5", bad])
        #expect(rejected.status == 0 && rejected.stdout.contains("(record 1, default:timeResidual): Event: rejected with its children: its Arrival.time_residual was rejected")
                && rejected.stdout.contains("Arrival: 0 inserted, 0 updated, 0 deleted, 2 unchanged"), "\(rejected.stdout)\(rejected.stderr)")
        #expect(try Self.stored(store) == expected2)
        #expect(try importer(["undo", "--store", store, try Self.token(store, 2)]).status == 0)
        #expect(try Self.stored(store) == expected1, "undo of the sync puts back the event with its origins and arrivals")
    }

    static func token(_ store: String, _ number: Int) throws -> String {
        try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = \(number)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
