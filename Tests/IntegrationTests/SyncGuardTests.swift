import ImporterTestSupport
import Foundation
import Testing

/// `curl … | importer run --sync -` with a bad answer never empties the store.
@Suite struct SyncGuardCommandTests {
    static let suspectAnswers: [(String, String)] = [
        ("{}", "no 'fields' and no 'data' member"),
        (#"{"error":"rate limited"}"#, "error answer, not data: rate limited"),
        (#"{"signature":{"version":"1.2"},"count":"0"}"#, "holds no records"),
        ("<html><body><h1>502 Bad Gateway</h1></body></html>", "<stdin>:1:1: expected '{'"),
        ("", "the feed is empty"),
    ]

    @Test(arguments: suspectAnswers)
    func suspectAnswersLeaveEveryRecord(answer: String, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        let run = try importer(["run", "--store", store, "--sync", "-"], stdin: Data(answer.utf8))
        #expect(run.status == 65)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try sha256(store) == before)
        let status = try importer(["status", "--store", store, "--format", "json"])
        #expect(status.stdout.contains(#""Fireball":10"#) || status.stdout.contains(#""records":10"#), "\(status.stdout)")
    }

    @Test func theEmptyAnswerDeletesOnlyWhenAllowedExplicitly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let empty = Data(#"{"signature":{"version":"1.2"},"count":"0"}"#.utf8)
        let half = try importer(["run", "--store", store, "--sync", "--allow-empty", "-"], stdin: empty)
        #expect(half.status == 65)
        #expect(half.stderr.contains("more than --max-delete 50% allows (5)"))
        let all = try importer(["run", "--store", store, "--sync", "--allow-empty", "--max-delete", "100%", "--format", "json", "-"], stdin: empty)
        #expect(all.status == 0)
        let report = try #require(all.json as? [String: Any])
        #expect((report["totals"] as? [String: Any])?["deleted"] as? Int == 10)
        #expect((report["errors"] as? [String])?.isEmpty == true)
    }

    @Test func aRefusedRunReportsWhatItWouldHaveDoneInItsErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        for extra in [[], ["--dry-run"]] {
            let run = try importer(["run", "--store", store, "--sync", "--max-delete", "2", "--format", "json"] + extra + [sample("fireball-vel-comp.json")])
            #expect(run.status == 65)
            let report = try #require(run.json as? [String: Any], "\(run.stdout)")
            #expect(report["transaction"] is NSNull)
            #expect((report["totals"] as? [String: Any])?["deleted"] as? Int == 7)
            let errors = try #require(report["errors"] as? [String])
            #expect(errors == ["--sync would delete 7 of the 10 stored Fireball records (70%), more than --max-delete 2 allows (2); check the feed, or pass --max-delete with a higher bound"])
            #expect(run.stderr.contains("nothing was written"))
        }
        let text = try importer(["run", "--store", store, "--sync", "--max-delete", "2", sample("fireball-vel-comp.json")])
        #expect(text.stdout.hasPrefix("Refused; nothing was written."))
        #expect(try sha256(store) == before)
    }

    @Test func maxDeleteMustBeACountOrAPercentage() throws {
        let run = try importer(["run", "--sync", "--max-delete", "half", sample("fireball-2024.json")])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--max-delete: 'half' is not a count or a percentage"))
    }

    static let thingModel = """
        entities:
        - name: Thing
          key: [tid]
          attributes:
          - {name: tid, type: text, required: true}
          - {name: n, type: integer}
        feeds:
        - name: things
          entity: Thing
          format: json
          fields:
          - {attribute: tid, field: id}
          - {attribute: n, field: n}
        """

    /// A record the feed still holds is not deleted because one of its values did not parse: a
    /// sync keeps the stored record of every reject whose key it read, and refuses (65, nothing
    /// written) when a reject's key cannot be read, since it cannot tell which record that is.
    @Test(arguments: ["sqlite", "postgres"]) func aSyncKeepsTheRecordsItRejected(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory), model = try directory.write("m.yaml", Self.thingModel)
        let first = try directory.write("1.json", #"[{"id":"a","n":1},{"id":"b","n":2},{"id":"c","n":3}]"#)
        try #require(try importer(["run", "--store", store, "--model", model, first]).status == 0)
        let badValue = try directory.write("2.json", #"[{"id":"a","n":1},{"id":"b","n":"x"}]"#)
        let run = try importer(["run", "--store", store, "--model", model, "--sync", "--max-rejects", "1", "--max-delete", "100%", "--format", "json", badValue])
        #expect(run.status == 0, "\(run.stderr)")
        let totals = try #require((run.json as? [String: Any])?["totals"] as? [String: Any])
        #expect(totals["deleted"] as? Int == 1 && totals["rejected"] as? Int == 1, "only c is gone: \(run.stdout)")
        let export = try importer(["export", "--store", store, "--entity", "Thing", "--format", "ndjson"])
        #expect(export.stdout == #"{"tid":"a","n":1}"# + "\n" + #"{"tid":"b","n":2}"# + "\n", "b kept with its stored value: \(export.stdout)")
        let badKey = try directory.write("3.json", #"[{"id":"a","n":1},{"id":null,"n":2}]"#)
        let refused = try importer(["run", "--store", store, "--model", model, "--sync", "--max-rejects", "1", "--max-delete", "100%", badKey])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("1 rejected Thing record(s) have no readable key: --sync cannot tell which stored records they stand for"), "\(refused.stderr)")
        #expect(try importer(["export", "--store", store, "--entity", "Thing", "--format", "ndjson"]).stdout == export.stdout, "nothing written")
        let plain = try importer(["run", "--store", store, "--model", model, "--max-rejects", "1", badKey])
        #expect(plain.status == 0, "without --sync nothing is deleted: \(plain.stderr)")
    }
}
