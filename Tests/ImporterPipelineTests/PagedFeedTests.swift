import ImporterTestSupport
import Foundation
import HTTPTestSupport
@testable import ImporterKit
import ImporterFetch
import ImporterSupport
import Synchronization
import Testing

/// Paged sources against a real HTTP server on loopback: every page of a run is one feed in one
/// transaction (so `--sync` applies to their union), each way of paging reaches the last page, a
/// loop or too many pages is refused with the store untouched and no page left on disk, and an
/// unchanged walk is not modified.
@Suite struct PagedFeedTests {
    static func model(_ pages: String, format: String = "json", records: String = "/items") throws -> Model {
        try ModelFile.parse("""
            entities:
            - name: Quake
              key: [code]
              attributes:
              - {name: code, type: text, required: true}
              - {name: mag, type: real}
            feeds:
            - name: quakes
              format: \(format)
              records: \(records)
              url: http://127.0.0.1/quakes
              headers: [{name: Authorization, env: PAGED_TEST_TOKEN}]
              pages: \(pages)
              fields: [{attribute: code, field: id}, {attribute: mag, field: mag}]
            """, name: "paged.yaml")
    }

    static func items(_ codes: some Sequence<Int>, mag: Double = 1.5) -> String {
        codes.map { #"{"id":"q\#($0)","mag":\#(mag)}"# }.joined(separator: ",")
    }

    /// The query parameter `name` of a request's URI.
    static func parameter(_ name: String, of request: TestHTTPServer.Request) -> String? {
        URLComponents(string: request.uri)?.queryItems?.first { $0.name == name }?.value
    }

    private func run(_ store: Store, _ model: Model, _ url: URL, sync: Bool = false) throws -> ImportResult {
        var options = ImportOptions(author: "t", context: "test", sync: sync)
        options.replayViews = false
        var request = FetchRequest(url: url)
        request.limits.deadline = FetchDuration(milliseconds: 10_000)
        let feed = try #require(model.feeds.first)
        request.headers = [("Authorization", .environment("PAGED_TEST_TOKEN"))]
        setenv("PAGED_TEST_TOKEN", "Bearer t0ken", 1)
        return try ImportSession(store: store, model: model, options: options).run([FeedInput(request: request, mapping: feed)])
    }

    private func codes(_ store: Store) throws -> [String] {
        var codes: [String] = []
        try store.query("SELECT code FROM Quake ORDER BY code", columns: { _ in }) { row in
            if case .text(let code)? = row.first { codes.append(code) }
        }
        return codes
    }

    private func spoolFiles(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("importer-fetch-") }
    }

    @Test func linkHeaderPagesAreOneFeedInOneTransactionAndSyncAppliesToTheirUnion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Store(path: directory.path("s.sqlite"))
        let model = try Self.model("{follow: link}")
        let pages = Mutex(3)
        let server = try TestHTTPServer { request in
            let page = Int(Self.parameter("page", of: request) ?? "1") ?? 1
            let last = pages.withLock { $0 }
            let link = page < last ? [("Link", #"</quakes?page=\#(page + 1)>; rel="next", </quakes?page=\#(last)>; rel="last""#)] : []
            return .init(headers: [("Content-Type", "application/json")] + link,
                         text: #"{"items":[\#(Self.items((page * 2 - 1) ... (page * 2)))]}"#)
        }
        defer { server.stop() }
        let first = try run(store, model, server.url("/quakes"))
        #expect(first.transactionNumber == 1 && first.totals.inserted == 6)
        #expect(server.requests.map { $0.uri } == ["/quakes", "/quakes?page=2", "/quakes?page=3"])
        #expect(server.requests.allSatisfy { $0.header("authorization") == "Bearer t0ken" })
        let shown = "http://127.0.0.1:\(server.port)/quakes"
        #expect(try store.read { snapshot in try snapshot.history.transactions(after: 0, through: 1, limit: nil) }.first?.sources == [shown])
        let state = try #require(try store.read { snapshot in try snapshot.sources.sourceState(url: shown) })
        #expect(state.transactionNumber == 1 && state.sha256?.count == 64 && state.etag == nil)

        let again = try run(store, model, server.url("/quakes"), sync: true)
        #expect(again.notModified && again.transactionNumber == nil, "the same pages again are not modified")

        pages.withLock { $0 = 2 }
        let shorter = try run(store, model, server.url("/quakes"), sync: true)
        #expect(shorter.transactionNumber == 2 && shorter.totals.deleted == 2 && shorter.totals.unchanged == 4,
                "--sync deletes what no page holds, and only that")
        #expect(try codes(store) == ["q1", "q2", "q3", "q4"])
        #expect(try spoolFiles(directory).isEmpty)
    }

    @Test func aNextURLInTheBodyIsFollowedAndSecretsStayOnTheSourcesOrigin() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Store(path: directory.path("s.sqlite"))
        let model = try Self.model("{follow: url, pointer: /links/next}")
        let other = try TestHTTPServer { _ in .init(headers: [("Content-Type", "application/json")], text: #"{"items":[\#(Self.items(5 ... 6))],"links":{"next":null}}"#) }
        defer { other.stop() }
        let elsewhere = other.url("/more").absoluteString
        let server = try TestHTTPServer { request in
            let body = request.uri == "/quakes"
                ? #"{"links":{"self":"/quakes","next":"/quakes/2"},"items":[\#(Self.items(1 ... 2))]}"#
                : #"{"items":[\#(Self.items(3 ... 4))],"links":{"next":"\#(elsewhere)"}}"#
            return .init(headers: [("Content-Type", "application/json")], text: body)
        }
        defer { server.stop() }
        let result = try run(store, model, server.url("/quakes"))
        #expect(result.totals.inserted == 6 && server.requests.map { $0.uri } == ["/quakes", "/quakes/2"] && other.requests.count == 1)
        #expect(server.requests.allSatisfy { $0.header("authorization") != nil })
        #expect(other.requests.first?.header("authorization") == nil, "a page on another origin gets no secret header")
    }

    @Test func aCursorIsSentBackEncodedAndARepeatedCursorIsRefusedWithNothingWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let model = try Self.model("{follow: cursor, pointer: /meta/next_cursor, parameter: after}")
        let loops = Mutex(false)
        let server = try TestHTTPServer { request in
            let cursor = Self.parameter("after", of: request)
            let (codes, next): (ClosedRange<Int>, String) = switch cursor {
            case nil: (1 ... 2, #""a+b/c==""#)
            case "a+b/c==": (3 ... 4, loops.withLock { $0 } ? #""a+b/c==""# : #""""#)
            default: (9 ... 9, "null")
            }
            return .init(headers: [("Content-Type", "application/json")], text: #"{"items":[\#(Self.items(codes))],"meta":{"next_cursor":\#(next)}}"#)
        }
        defer { server.stop() }
        let result = try run(try Store(path: path), model, server.url("/quakes?limit=2"))
        #expect(result.totals.inserted == 4)
        #expect(server.requests.map { $0.uri } == ["/quakes?limit=2", "/quakes?limit=2&after=a%2Bb%2Fc%3D%3D"])

        loops.withLock { $0 = true }
        let before = try sha256(path)
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), model, server.url("/quakes?limit=2")) }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.badInput)
        #expect(error?.description.contains("a page already read") == true)
        #expect(try sha256(path) == before)
        #expect(try spoolFiles(directory).isEmpty, "the pages fetched before the loop are removed")
    }

    /// A misspelt pointer never passes for a last page: an object on its way that the first page
    /// lacks fails the run with the store untouched; a missing last member reads the one page with
    /// a warning in the result; absence on a later page is the normal end.
    @Test func aPointerTheFirstPageLacksIsAnErrorOrAWarningNeverSilence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let server = try TestHTTPServer { request in
            let body = Self.parameter("after", of: request) == nil
                ? #"{"items":[\#(Self.items(1 ... 2))],"meta":{"next_cursor":"c2"}}"#
                : #"{"items":[\#(Self.items(3 ... 3))],"meta":{}}"#
            return .init(headers: [("Content-Type", "application/json")], text: body)
        }
        defer { server.stop() }
        _ = try run(try Store(path: path), try Self.model("{follow: cursor, pointer: /meta/next_cursor, parameter: after}"), server.url("/seed"))
        let before = try sha256(path)
        let wrongObject = try Self.model("{follow: cursor, pointer: /metadata/next_cursor, parameter: after}")
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), wrongObject, server.url("/quakes"), sync: true) }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.badInput)
        #expect(error?.description.contains("no /metadata") == true, "\(String(describing: error))")
        #expect(try sha256(path) == before && (try spoolFiles(directory)).isEmpty)

        let wrongMember = try Self.model("{follow: cursor, pointer: /meta/nextCursor, parameter: after}")
        let onePage = try run(try Store(path: directory.path("t.sqlite")), wrongMember, server.url("/quakes"))
        #expect(onePage.totals.inserted == 2)
        #expect(onePage.warnings.contains { $0.contains("no /meta/nextCursor") && $0.contains("only page") }, "\(onePage.warnings)")

        let right = try run(try Store(path: directory.path("u.sqlite")), try Self.model("{follow: cursor, pointer: /meta/next_cursor, parameter: after}"), server.url("/quakes"))
        #expect(right.totals.inserted == 3 && right.warnings.isEmpty, "the last page without the member just ends the walk")
    }

    @Test func offsetsStopAtAShortPageAndPageNumbersAtAnEmptyOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let records = Array(1 ... 5)
        let server = try TestHTTPServer { request in
            let size = 2
            let start: Int
            if let offset = Self.parameter("offset", of: request) { start = Int(offset) ?? 0 } else { start = ((Int(Self.parameter("p", of: request) ?? "1") ?? 1) - 1) * size }
            let slice = records.dropFirst(start).prefix(size)
            return .init(headers: [("Content-Type", "application/json")], text: #"{"items":[\#(Self.items(slice))]}"#)
        }
        defer { server.stop() }
        let byOffset = try run(try Store(path: directory.path("a.sqlite")), try Self.model("{follow: offset, parameter: offset, size: 2}"), server.url("/quakes?offset=7"))
        #expect(byOffset.totals.inserted == 5)
        #expect(server.requests.map { $0.uri } == ["/quakes?offset=0", "/quakes?offset=2", "/quakes?offset=4"], "the third page is short: the last")

        let byPage = try run(try Store(path: directory.path("b.sqlite")), try Self.model("{follow: page, parameter: p}"), server.url("/quakes"))
        #expect(byPage.totals.inserted == 5)
        #expect(server.requests.dropFirst(3).map { $0.uri } == ["/quakes?p=1", "/quakes?p=2", "/quakes?p=3", "/quakes?p=4"], "page 4 is empty: the end")
    }

    @Test func moreThanTheBoundOfPagesIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let server = try TestHTTPServer { request in
            let page = Int(Self.parameter("page", of: request) ?? "1") ?? 1
            return .init(headers: [("Content-Type", "application/json"), ("Link", "<?page=\(page + 1)>; rel=next")], text: #"{"items":[\#(Self.items(page ... page))]}"#)
        }
        defer { server.stop() }
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), try Self.model("{follow: link, max: 4}"), server.url("/quakes")) }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.badInput && error?.description.contains("more than 4 pages") == true)
        #expect(server.requests.count == 4)
        #expect(try Store(path: path).lastTransactionNumber() == 0)
        #expect(try spoolFiles(directory).isEmpty)
    }
}
