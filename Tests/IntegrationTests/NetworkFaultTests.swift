import ImporterTestSupport
import Crypto
import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing

/// The network edges under the faults real servers have, through the built binary: an answer whose
/// end cannot be told from a cut never drives a sync, `--deadline` bounds every byte of a fetch
/// and of a delivery, a receiver command's children end with it, validators follow the body, a
/// metrics file that cannot be written is never "nothing changed".
@Suite struct NetworkFaultTests {
    static let model = """
        entities:
          - name: Quake
            key: [code]
            attributes:
              - {name: code, type: text, required: true}
              - {name: mag, type: real}
        feeds:
          - name: quakes
            entity: Quake
            format: ndjson
            fields:
              - {attribute: code, field: /code}
              - {attribute: mag, field: /mag}
        """

    static func quakes(_ codes: ClosedRange<Int>) -> String {
        codes.map { #"{"code":"q\#($0)","mag":\#(Double($0) / 10)}"# + "\n" }.joined()
    }

    static func records(_ store: String) throws -> Int {
        let query = try importer(["query", "--store", store, "--format", "json", #"SELECT count(*) AS n FROM "quake""#])
        try #require(query.status == 0, "\(query.stderr)")
        return ((query.json as? [[String: Any]])?.first?["n"] as? Int) ?? -1
    }

    /// An NDJSON answer with neither a length nor chunked framing, cut by the server after 3 of its
    /// 5 lines (at a line boundary: it parses as a whole, shorter feed), is refused for `--sync`
    /// (65, naming the option that accepts it), the store untouched; outside a sync it is read with
    /// a warning; `--allow-unframed` lets it sync.
    @Test(arguments: ["sqlite", "postgres"]) func aCloseDelimitedAnswerCutAtALineNeverDrivesASync(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = backend == "postgres" ? try PostgresTestCluster.start() : nil
        let store = try cluster?.newStoreURL() ?? directory.path("store.sqlite")
        defer { if let cluster { try? cluster.dropStore(store) } }
        try Self.model.write(toFile: directory.path("model.yaml"), atomically: true, encoding: .utf8)
        try Self.quakes(1 ... 5).write(toFile: directory.path("all.ndjson"), atomically: true, encoding: .utf8)
        try #require(try importer(["run", "--store", store, "--model", "model.yaml", "all.ndjson"], directory: directory.url).status == 0)
        let whole = Array(Self.quakes(1 ... 5).utf8)
        let cut = Self.quakes(1 ... 3).utf8.count
        let server = try TestHTTPServer { _ in .init(headers: [("Content-Type", "application/x-ndjson")], body: whole, cutAfter: cut, unframed: true) }
        defer { server.stop() }
        let url = server.url("/quakes.ndjson").absoluteString
        let history = try importer(["history", "--store", store, "--format", "json"]).stdout

        let refused = try importer(["run", "--store", store, "--model", "model.yaml", "--sync", "--format", "json", url], directory: directory.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("neither a Content-Length nor chunked framing") && refused.stderr.contains("--allow-unframed"), "\(refused.stderr)")
        #expect(try Self.records(store) == 5 && (try importer(["history", "--store", store, "--format", "json"]).stdout) == history, "nothing deleted")

        let read = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", url], directory: directory.url)
        #expect(read.status == 0, "\(read.stderr)")
        let warnings = (read.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("neither a Content-Length nor chunked framing") }, "\(read.stdout)")
        #expect(try Self.records(store) == 5)

        let allowed = try importer(["run", "--store", store, "--model", "model.yaml", "--sync", "--allow-unframed", "--refetch", "--format", "json", url],
                                   directory: directory.url)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try Self.records(store) == 3, "allowed (and fetched again in full, its hash being the last run's): the cut feed synced")
    }

    /// A body that trickles (10 bytes every 200 ms) past `--deadline 3s`: 75 near the deadline,
    /// nothing written, no downloaded body left beside the store.
    @Test func aTricklingBodyEndsAtTheDeadline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.model.write(toFile: directory.path("model.yaml"), atomically: true, encoding: .utf8)
        try Self.quakes(1 ... 5).write(toFile: directory.path("all.ndjson"), atomically: true, encoding: .utf8)
        try #require(try importer(["run", "--store", store, "--model", "model.yaml", "all.ndjson"], directory: directory.url).status == 0)
        let before = try sha256(store)
        let server = try TestHTTPServer { _ in .init(body: Array(Self.quakes(1 ... 400).utf8), trickle: .init(bytes: 10, interval: 0.2)) }
        defer { server.stop() }
        let started = Date()
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--deadline", "3s", server.url().absoluteString], directory: directory.url)
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 75 && run.stderr.contains("try again later"), "\(run.stderr)")
        #expect(elapsed < 7, "ended \(elapsed) s after it began, past a 3 s deadline")
        #expect(try sha256(store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("importer-fetch-") }.isEmpty)
    }

    /// A 200 whose body is the last import's under a new ETag is "not modified" and its ETag is
    /// kept, so that the next run's conditional request gets its 304.
    @Test func validatorsFollowAnUnchangedBody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.model.write(toFile: directory.path("model.yaml"), atomically: true, encoding: .utf8)
        let body = Array(Self.quakes(1 ... 5).utf8)
        let server = try TestHTTPServer { request in
            // The ETag changes with every full answer (a server that stamps its build), never the body.
            if request.header("if-none-match") == "\"v2\"" { return .init(status: 304) }
            return .init(headers: [("ETag", "\"v\(request.index + 1)\"")], body: body)
        }
        defer { server.stop() }
        let url = server.url().absoluteString
        let arguments = ["run", "--store", store, "--model", "model.yaml", "--exit-code", url]
        #expect(try importer(arguments, directory: directory.url).status == 0)
        let same = try importer(arguments, directory: directory.url)
        #expect(same.status == 1 && same.stdout.contains("Not modified"), "\(same.stdout)\(same.stderr)")
        let sources = (try importer(["status", "--store", store, "--format", "json"]).json as? [String: Any])?["sources"] as? [[String: Any]]
        #expect(sources?.first?["etag"] as? String == "\"v2\"" && sources?.first?["transaction"] as? Int == 1, "\(String(describing: sources))")
        #expect(try importer(arguments, directory: directory.url).status == 1)
        #expect(server.requests.count == 3 && server.requests.last?.header("if-none-match") == "\"v2\"")
    }

    /// A webhook receiver that sends its `200` head and then nothing: `deliver --deadline 3s` gives
    /// up near the deadline (75) instead of waiting on the body, and the token stays.
    @Test func aReceiverThatStallsAfterItsHeadDoesNotHoldDeliver() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 1)
        let secretFile = try DeliverWebhookTests.secretFile(in: directory)
        let server = try TestHTTPServer { _ in .init(status: 500, body: Array("still thinking".utf8), stallAfter: 0) }
        defer { server.stop() }
        let started = Date()
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--deadline", "3s", "--store", store])
        #expect(run.status == 75, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(try DeliverTests.pendingTokens(store) == expected)
    }

    /// A 2xx is received once its head arrives: a receiver that stalls after `204`'s head does not
    /// hold the run either.
    @Test func aTwoHundredIsReceivedWithoutWaitingForItsBody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        _ = try DeliverTests.storeWithHistory(store, in: directory, rounds: 2)
        let secretFile = try DeliverWebhookTests.secretFile(in: directory)
        let server = try TestHTTPServer { _ in .init(status: 200, body: Array("accepted, and more to come".utf8), stallAfter: 3) }
        defer { server.stop() }
        let started = Date()
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--deadline", "10s", "--store", store])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(try DeliverTests.pendingTokens(store).isEmpty)
    }

    /// `deliver --exec` whose command started children that outlive `--deadline`: the whole process
    /// group is stopped, so a child cannot finish the transaction after importer gave up on it.
    @Test func aReceiverCommandsChildrenEndAtTheDeadline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 1)
        let late = directory.path("late")
        let command = "(sleep 3; touch '\(late)') & sleep 30; wait"
        let run = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--deadline", "1s", "--store", store])
        #expect(run.status == 75, "\(run.stderr)")
        Thread.sleep(forTimeInterval: 4)
        #expect(!FileManager.default.fileExists(atPath: late), "the receiver's child was stopped with it")
        #expect(try DeliverTests.pendingTokens(store) == expected)
    }

    /// A metrics file that cannot be written fails the run (74) even when `--exit-code` would have
    /// said "nothing changed" (1): a cron job must not take a broken monitoring for a quiet day.
    @Test func anUnwritableMetricsFileIs74WhateverExitCodeSays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let run = try importer(["run", "--store", store, "--exit-code", "--metrics-file", directory.path("no/such/dir/importer.prom"),
                                sample("fireball-2024.json")])
        #expect(run.status == 74, "\(run.stderr)")
    }
}
