import ImporterTestSupport
import Foundation
import HTTPTestSupport
import ImporterKit
import Synchronization
import Testing

/// `importer run URL` as a cron job runs it, against a real HTTP server on loopback: the exit codes
/// a wrapper acts on, "not modified", the source's state in `status`, and no credential anywhere.
@Suite struct URLFeedCommandTests {
    final class Served: Sendable {
        let answer = Mutex<(status: Int, type: String, etag: String, body: String)>((200, "application/json", "\"v1\"", ""))
    }

    static func feed(_ count: Int) -> String {
        let rows = (0 ..< count).map { #"["2024-02-\#(String(format: "%02d", $0 + 1)) 00:00:00","1.5","0.1",null,null,null,null,null,null]"# }
        return #"{"signature":{"version":"1.2"},"count":"\#(rows.count)","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":[\#(rows.joined(separator: ","))]}"#
    }

    private func server(_ served: Served) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            let answer = served.answer.withLock { $0 }
            if answer.status == 200, request.header("if-none-match") == answer.etag { return .init(status: 304) }
            return .init(status: answer.status, headers: [("Content-Type", answer.type), ("ETag", answer.etag)], text: answer.body)
        }
    }

    @Test func aURLFeedImportsThenIsNotModifiedAndStatusShowsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let served = Served()
        served.answer.withLock { $0.body = Self.feed(4) }
        let server = try server(served)
        defer { server.stop() }
        let store = directory.path("s.sqlite")
        let url = "http://cron:hunter2@127.0.0.1:\(server.port)/fireball.api?api_key=s3cr3t"
        let first = try importer(["run", "--store", store, "--format", "json", url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect((first.json as? [String: Any])?["totals"].flatMap { ($0 as? [String: Any])?["inserted"] as? Int } == 4)
        let again = try importer(["run", "--store", store, "--exit-code", url])
        #expect(again.status == 1 && again.stdout.contains("Not modified"), "\(again.stdout)\(again.stderr)")
        #expect(server.requests.last?.header("if-none-match") == "\"v1\"")
        let status = try importer(["status", "--store", store, "--format", "json"])
        let sources = (status.json as? [String: Any])?["sources"] as? [[String: Any]]
        #expect(sources?.first?["etag"] as? String == "\"v1\"" && sources?.first?["transaction"] as? Int == 1)
        let refetched = try importer(["run", "--store", store, "--refetch", "--format", "json", url])
        #expect(refetched.status == 0 && server.requests.last?.header("if-none-match") == nil)
        let after = (try importer(["status", "--store", store, "--format", "json"]).json as? [String: Any])?["sources"] as? [[String: Any]]
        #expect(after?.first?["transaction"] is NSNull, "the refetch imported the same records: no transaction")
        var everything = first.stdout + first.stderr + again.stdout + again.stderr + status.stdout
        for command in [["history", "--format", "json"], ["report", "--report", "markdown"], ["status"]] {
            everything += try importer(command + ["--store", store]).stdout
        }
        #expect(everything.contains("api_key=REDACTED"))
        #expect(!everything.contains("hunter2") && !everything.contains("s3cr3t"), "no credential in any output")
    }

    @Test func aMappingsURLIsFetchedWithItsSecretHeaderWhenNoFeedIsGiven() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = try TestHTTPServer { request in
            request.header("authorization") == "Bearer tok-42" ? .init(text: Self.feed(2)) : .init(status: 401, text: "who are you?")
        }
        defer { server.stop() }
        let shown = try importer(["model", "show"]).stdout
        let model = shown.replacingOccurrences(of: "  format: nasa-columnar\n", with: """
              format: nasa-columnar
              url: \(server.url("/fireball.api").absoluteString)
              headers:
              - {name: Authorization, env: FIREBALL_TOKEN}

            """)
        try #require(model != shown)
        try model.write(toFile: directory.path("model.yaml"), atomically: true, encoding: .utf8)
        let store = directory.path("s.sqlite")
        let missing = try importer(["run", "--store", store, "--model", "model.yaml"], directory: directory.url)
        #expect(missing.status == 78 && missing.stderr.contains("FIREBALL_TOKEN is not set"), "\(missing.stderr)")
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json"], environment: ["FIREBALL_TOKEN": "Bearer tok-42"],
                               directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.json as? [String: Any])?["totals"].flatMap { ($0 as? [String: Any])?["inserted"] as? Int } == 2)
        #expect(!(run.stdout + run.stderr).contains("tok-42"))
        let badDeadline = try importer(["run", "--store", store, "--deadline", "soon", server.url().absoluteString])
        #expect(badDeadline.status == 64 && badDeadline.stderr.contains("--deadline: 'soon' is not a duration"), "\(badDeadline.stderr)")
        let none = try importer(["run", "--store", store])
        #expect(none.status == 64 && none.stderr.contains("give at least one feed"), "\(none.stderr)")
    }

    @Test(arguments: [(503, "text/plain", 75, "try again later"), (404, "application/json", 69, "answered 404"),
                      (200, "text/html", 65, "not the feed")])
    func aFailingSourceExitsWithItsCodeAndWritesNothing(status: Int, type: String, code: Int32, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let served = Served()
        served.answer.withLock { $0 = (status, type, "\"x\"", "<html>maintenance</html>") }
        let server = try server(served)
        defer { server.stop() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        let started = Date()
        let run = try importer(["run", "--store", store, "--deadline", "2s", "--sync", server.url().absoluteString])
        #expect(run.status == code && run.stderr.contains(message), "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 8, "the deadline bounds the run")
        #expect(try sha256(store) == before)
    }
}
