import ImporterTestSupport
import Foundation
import HTTPTestSupport
@testable import ImporterFetch
import ImporterModel
import Testing

/// The fetcher under the faults real servers have: bodies that trickle past the deadline, bodies
/// whose end cannot be told from a cut, credentials in the URL, validators renewed with an
/// unchanged body, bodies left behind by a killed process.
@Suite struct FetchEdgeTests {
    static let feed = String(repeating: #"{"id":1}"# + "\n", count: 200)

    /// A fetcher whose idle timeout (30 s) is far longer than its deadline: only the deadline can stop it.
    private func fetcher(_ url: URL, deadline: String = "10s", format: FeedFormat = .ndjson, spool: String) -> HTTPFetcher {
        var request = FetchRequest(url: url)
        request.format = format
        request.limits.deadline = FetchDuration(parsing: deadline) ?? request.limits.deadline
        return HTTPFetcher(request: request, spoolDirectory: spool)
    }

    private func spool() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("importer-spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A server sending 10 bytes every 200 ms (a 360 s body) keeps sending past the deadline: the
    /// fetch ends at the deadline, 75, with no partial body left behind.
    @Test(arguments: ["trickle", "stall"]) func theDeadlineBoundsTheWholeBody(kind: String) throws {
        let body = Array(Self.feed.utf8)
        let server = try TestHTTPServer { _ in
            kind == "trickle" ? .init(body: body, trickle: .init(bytes: 10, interval: 0.2)) : .init(body: body, stallAfter: 10)
        }
        defer { server.stop() }
        let spool = try spool()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let started = Date()
        let error = #expect(throws: FetchError.self) { try fetcher(server.url(), deadline: "2s", spool: spool).fetchBlocking() }
        let elapsed = Date().timeIntervalSince(started)
        guard case .tryLater(_, let attempts, _, _)? = error else { Issue.record("expected try later, got \(String(describing: error))"); return }
        #expect(attempts == 1 && error?.exitStatus.rawValue == 75)
        #expect(elapsed >= 1.9 && elapsed < 4, "ended at the 2 s deadline (\(elapsed) s), not when the server stopped")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, "no partial body left behind")
    }

    /// How each answer was delimited is kept with its body: a close-delimited one may be a cut.
    @Test func theBodysFramingIsKept() throws {
        let body = Array(Self.feed.utf8)
        let server = try TestHTTPServer { request in
            switch request.uri {
            case "/unframed": .init(body: body, unframed: true)
            case "/cut": .init(body: body, cutAfter: 900, unframed: true)
            case "/chunked": .init(headers: [("Transfer-Encoding", "chunked")], body: body)
            default: .init(body: body)
            }
        }
        defer { server.stop() }
        let spool = try spool()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        for (path, framing, bytes) in [("/unframed", BodyFraming.closeDelimited, body.count), ("/cut", .closeDelimited, 900),
                                       ("/chunked", .chunked, body.count), ("/length", .length, body.count)] {
            guard case .body(let fetched) = try fetcher(server.url(path), spool: spool).fetchBlocking() else {
                Issue.record("\(path): expected a body"); continue
            }
            fetched.remove()
            #expect(fetched.framing == framing, "\(path): \(fetched.framing)")
            #expect(fetched.fetch.bytes == Int64(bytes), "\(path): \(fetched.fetch.bytes)")
        }
    }

    /// `https://user:pass@host/…`: the credentials go as Basic authorization (curl's way), never
    /// dropped, and never in the request line or a message.
    @Test func credentialsInTheURLAreSentAsBasic() throws {
        let expected = "Basic " + Data("cron:p@ss word".utf8).base64EncodedString()
        let server = try TestHTTPServer { request in
            request.header("authorization") == expected ? .init(text: Self.feed) : .init(status: 401, text: "who are you?")
        }
        defer { server.stop() }
        let spool = try spool()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let url = try #require(URL(string: "http://cron:p%40ss%20word@127.0.0.1:\(server.port)/feed"))
        guard case .body(let fetched) = try fetcher(url, spool: spool).fetchBlocking() else { Issue.record("expected a body"); return }
        fetched.remove()
        #expect(server.requests.first?.uri == "/feed")
        #expect(!fetched.fetch.url.contains("cron") && !fetched.fetch.url.contains("ss"))
    }

    /// The body of the last import again under a new ETag is not modified, and carries the new
    /// validators for the store to keep.
    @Test func anUnchangedBodyCarriesItsNewValidators() throws {
        let server = try TestHTTPServer { request in .init(headers: [("ETag", "\"v\(request.index + 1)\"")], text: Self.feed) }
        defer { server.stop() }
        let spool = try spool()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        guard case .body(let first) = try fetcher(server.url(), spool: spool).fetchBlocking() else { Issue.record("expected a body"); return }
        first.remove()
        var again = fetcher(server.url(), spool: spool)
        again.request.validators = first.fetch.validators
        guard case .notModified(let fetch) = try again.fetchBlocking() else { Issue.record("expected not modified"); return }
        #expect(first.fetch.validators.etag == "\"v1\"" && fetch.validators.etag == "\"v2\"" && fetch.status == 200)
    }

    /// A body left by a process that no longer runs (kill -9 during a fetch) is removed by the next
    /// fetch into the same directory; one of a running process is not.
    @Test func bodiesOfEndedProcessesAreSwept() throws {
        let server = try TestHTTPServer { _ in .init(text: Self.feed) }
        defer { server.stop() }
        let spool = try spool()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let ended = (spool as NSString).appendingPathComponent("importer-fetch-4194304-\(UUID().uuidString).body")
        let legacy = (spool as NSString).appendingPathComponent("importer-fetch-\(UUID().uuidString).body")
        let running = (spool as NSString).appendingPathComponent("importer-fetch-\(getpid())-\(UUID().uuidString).body")
        for path in [ended, legacy, running] { #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        guard case .body(let fetched) = try fetcher(server.url(), spool: spool).fetchBlocking() else { Issue.record("expected a body"); return }
        defer { fetched.remove() }
        #expect(!FileManager.default.fileExists(atPath: ended) && !FileManager.default.fileExists(atPath: legacy))
        #expect(FileManager.default.fileExists(atPath: running) && FileManager.default.fileExists(atPath: fetched.file))
        #expect((fetched.file as NSString).lastPathComponent.hasPrefix("importer-fetch-\(getpid())-"))
    }
}
