import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// A podcast feed whose cast list comes in another order every week: as a set (`repeated: set`) a
/// re-ordering is no change and an added voice exactly one update; as a list (`repeated: all`)
/// every re-ordered episode is an update. Both backends.
@Suite struct SetFieldTests {
    static func feed(_ episodes: [(String, [String])]) -> String {
        "<rss xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>Cast</title>\n"
            + episodes.map { guid, cast in
                "<item><guid>\(guid)</guid>" + cast.map { "<itunes:author>\($0)</itunes:author>" }.joined() + "</item>\n"
            }.joined() + "</channel></rss>\n"
    }

    static func model(_ repeated: String) -> String {
        """
        entities:
        - name: Episode
          table: episode
          key: [guid]
          attributes:
          - {name: guid, type: text, required: true}
          - {name: voices, type: text}
        feeds:
        - name: rss
          entity: Episode
          format: xml
          records: /rss/channel/item
          namespaces: {itunes: "http://www.itunes.com/dtds/podcast-1.0.dtd"}
          fields:
          - {attribute: guid, field: guid}
          - {attribute: voices, field: "itunes:author", repeated: \(repeated)}
        """
    }

    private func totals(_ result: Execution) -> [String: Any] {
        (result.json as? [String: Any])?["totals"] as? [String: Any] ?? [:]
    }

    @Test(arguments: ["sqlite", "postgres"]) func aReorderedCastIsNoChangeAsASet(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let week1 = try directory.write("week1.xml", Self.feed([("e1", ["Ana", "Bo", "Cy"]), ("e2", ["Dee", "Ed"]), ("e3", ["Flo"])]))
        // Every list re-ordered; e3 gains a voice.
        let week2 = try directory.write("week2.xml", Self.feed([("e1", ["Cy", "Ana", "Bo"]), ("e2", ["Ed", "Dee"]), ("e3", ["Gus", "Flo"])]))
        var stores: [String: String] = [:]
        for (repeated, updated) in [("set", 1), ("all", 3)] {
            let model = try directory.write("\(repeated).yaml", Self.model(repeated))
            let store = backend == "postgres" ? try PostgresTestCluster.start().newStoreURL() : directory.path("\(repeated).sqlite")
            stores[repeated] = store
            let first = try importer(["run", "--store", store, "--model", model, "--format", "json", week1])
            #expect(first.status == 0 && totals(first)["inserted"] as? Int == 3, "\(first.stdout)\(first.stderr)")
            // As a list, every re-ordered episode is an update: the mass-update guard must be told.
            let second = try importer(["run", "--store", store, "--model", model, "--format", "json", "--max-updated", "100%", week2])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(totals(second)["updated"] as? Int == updated && totals(second)["unchanged"] as? Int == 3 - updated, "\(repeated): \(second.stdout)")
        }
        let cast = try importer(["query", "--store", try #require(stores["set"]), "--format", "csv", "SELECT guid, voices FROM episode ORDER BY guid"])
        #expect(cast.stdout.split(separator: "\r\n").dropFirst() == [#""e1","[""Ana"",""Bo"",""Cy""]""#, #""e2","[""Dee"",""Ed""]""#,
                                                                    #""e3","[""Flo"",""Gus""]""#], "\(cast.stdout)")
    }

    /// A voice listed twice is kept once, and the run says how many records did that.
    @Test func aValueListedTwiceIsKeptOnceAndNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = try directory.write("week.xml", Self.feed([("e1", ["Ana", "Bo", "Ana"]), ("e2", ["Dee"])]))
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--model", try directory.write("set.yaml", Self.model("set")), "--format", "json", feed])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = (run.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("1 record listed a value of attribute voices more than once") }, "\(warnings)")
        let cast = try importer(["query", "--store", store, "--format", "csv", "SELECT voices FROM episode WHERE guid = 'e1'"])
        #expect(cast.stdout.contains(#""[""Ana"",""Bo""]""#), "\(cast.stdout)")
    }
}
