import ImporterTestSupport
import Foundation
import HTTPTestSupport
@testable import ImporterKit
import ImporterFetch
import ImporterSupport
import Synchronization
import Testing

/// A run whose feeds come from URLs, against a real HTTP server on loopback: the body is imported
/// as a file's would be, the source's validators are kept in the same transaction, an unchanged
/// source writes nothing, and a source that keeps failing leaves the store untouched.
@Suite struct URLFeedTests {
    /// What the test server serves now: the body and its ETag.
    final class Served: Sendable {
        let current = Mutex<(etag: String, body: String)>(("", ""))
        func set(_ etag: String, _ body: String) { current.withLock { $0 = (etag, body) } }
    }

    static func rows(_ count: Int, energy: String = "1.0") -> [String] {
        (0 ..< count).map { #"["2024-01-\#(String(format: "%02d", $0 + 1)) 00:00:00","\#(energy)","0.1",null,null,null,null,null,null]"# }
    }

    private func run(_ store: Store, _ url: URL, sync: Bool = false, deadline: String = "10s") throws -> ImportResult {
        var options = ImportOptions(author: "t", context: "test", sync: sync)
        options.replayViews = false
        options.maxUpdated = .percent(100)  // a revised snapshot changes every energy of these tiny feeds
        var request = FetchRequest(url: url)
        request.limits.deadline = FetchDuration(parsing: deadline) ?? request.limits.deadline
        return try ImportSession(store: store, model: FireballModel.model, options: options).run([FeedInput(request: request, mapping: FireballModel.apiFeed)])
    }

    private func served(_ served: Served) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            let (etag, body) = served.current.withLock { $0 }
            if request.header("if-none-match") == etag { return .init(status: 304) }
            return .init(headers: [("ETag", etag), ("Content-Type", "application/json")], text: body)
        }
    }

    @Test func aURLFeedImportsKeepsItsETagAndIsNotModifiedNextTime() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Store(path: directory.path("s.sqlite"))
        let content = Served()
        content.set("\"v1\"", fireballFeed(Self.rows(3)))
        let server = try served(content)
        defer { server.stop() }
        let url = try #require(URL(string: "http://reader:hunter2@127.0.0.1:\(server.port)/fireball.api?api_key=s3cr3t&limit=3"))
        let shown = "http://127.0.0.1:\(server.port)/fireball.api?api_key=REDACTED&limit=3"

        let first = try run(store, url)
        #expect(first.transactionNumber == 1 && first.totals.inserted == 3 && !first.notModified)
        let state = try store.read { snapshot in try snapshot.sources.sourceState(url: shown) }
        #expect(state?.etag == "\"v1\"" && state?.transactionNumber == 1 && state?.status == 200 && state?.sha256?.count == 64)
        #expect(try store.read { snapshot in try snapshot.history.transactions(after: 0, through: 1, limit: nil) }.first?.sources == [shown])

        let second = try run(store, url)
        #expect(second.notModified && second.transactionNumber == nil && second.fetched.first?.status == 304)
        #expect(server.requests.last?.header("if-none-match") == "\"v1\"")
        #expect(try store.lastTransactionNumber() == 1)

        content.set("\"v2\"", fireballFeed(Self.rows(4, energy: "2.0")))
        let third = try run(store, url, sync: true)
        #expect(third.transactionNumber == 2 && third.totals.inserted == 1 && third.totals.updated == 3)
        #expect(try store.read { snapshot in try snapshot.sources.sourceState(url: shown) }?.etag == "\"v2\"")

        let files = ["s.sqlite", "s.sqlite-wal"].map(directory.path).filter { FileManager.default.fileExists(atPath: $0) }
        let everything = try files.map { try String(contentsOfFile: $0, encoding: .isoLatin1) }.joined()
        #expect(everything.contains("api_key=REDACTED"), "the URL is in the store, redacted")
        #expect(!everything.contains("hunter2") && !everything.contains("s3cr3t"), "no credential reaches the store")
    }

    @Test func aSourceThatKeepsFailingLeavesTheStoreUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let before = try sha256(path)
        let server = try TestHTTPServer { _ in .init(status: 503, text: "maintenance") }
        defer { server.stop() }
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), server.url(), deadline: "1s") }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.locked, "75: try again later")
        #expect(server.requests.count >= 2, "retried within the deadline")
        #expect(try sha256(path) == before)
    }

    @Test func anHTMLAnswerIsRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let before = try sha256(path)
        let server = try TestHTTPServer { _ in .init(headers: [("Content-Type", "text/html")], text: "<html>maintenance</html>") }
        defer { server.stop() }
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), server.url()) }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.badInput && error?.description.contains("text/html") == true)
        #expect(try sha256(path) == before)
    }
}
