import ImporterTestSupport
import Foundation
import HTTPTestSupport
@testable import ImporterFetch
import ImporterModel
import NIOSSL
import PostgresTestSupport
import Testing

/// The fetcher against a real HTTP server on loopback (`TestHTTPServer`): conditional requests,
/// retries within the deadline, refusals, cut and stalled bodies, redirects, gzip, secrets.
///
/// Through `fetchBlocking`, as the commands call it: its task runs on the calling thread, so the
/// timings hold however busy Swift's cooperative pool is with the other tests.
@Suite struct HTTPFetcherTests {
    static let feed = #"{"count":"1","fields":["date"],"data":[["2024-01-01 00:00:00"]]}"#
    static let spool = FileManager.default.temporaryDirectory.path

    private func fetcher(_ url: URL, validators: SourceValidators? = nil, deadline: String = "10s", format: FeedFormat? = .nasaColumnar,
                         spool: String = Self.spool) -> HTTPFetcher {
        var request = FetchRequest(url: url)
        request.validators = validators
        request.format = format
        request.limits.deadline = FetchDuration(parsing: deadline) ?? request.limits.deadline
        request.limits.idleTimeout = FetchDuration(milliseconds: 1500)
        return HTTPFetcher(request: request, spoolDirectory: spool)
    }

    private func body(_ outcome: FetchOutcome) throws -> FetchedBody {
        guard case .body(let body) = outcome else { Issue.record("expected a body, got \(outcome)"); throw CancellationError() }
        return body
    }

    @Test func anETagIsSentBackAndA304IsNotModified() throws {
        let server = try TestHTTPServer { request in
            request.header("if-none-match") == "\"v1\"" ? .init(status: 304) : .init(headers: [("ETag", "\"v1\""), ("Content-Type", "application/json")], text: Self.feed)
        }
        defer { server.stop() }
        let first = try body(try fetcher(server.url()).fetchBlocking())
        defer { first.remove() }
        #expect(try String(contentsOfFile: first.file, encoding: .utf8) == Self.feed)
        #expect(first.fetch.status == 200 && first.fetch.validators.etag == "\"v1\"" && first.fetch.bytes == Int64(Self.feed.utf8.count))
        #expect(first.fetch.validators.sha256?.count == 64)
        guard case .notModified(let again) = try fetcher(server.url(), validators: first.fetch.validators).fetchBlocking() else {
            Issue.record("a 304 is not modified"); return
        }
        #expect(again.status == 304 && server.requests.last?.header("if-none-match") == "\"v1\"")
    }

    @Test func lastModifiedAloneMakesTheRequestConditional() throws {
        let stamp = "Wed, 01 Jan 2025 00:00:00 GMT"
        let server = try TestHTTPServer { request in
            request.header("if-modified-since") == stamp ? .init(status: 304) : .init(headers: [("Last-Modified", stamp)], text: Self.feed)
        }
        defer { server.stop() }
        let first = try body(try fetcher(server.url()).fetchBlocking())
        first.remove()
        #expect(first.fetch.validators.lastModified == stamp && first.fetch.validators.etag == nil)
        guard case .notModified = try fetcher(server.url(), validators: first.fetch.validators).fetchBlocking() else { Issue.record("not a 304"); return }
    }

    @Test func theSameBodyAgainIsNotModifiedByItsHash() throws {
        let server = try TestHTTPServer { _ in .init(text: Self.feed) }
        defer { server.stop() }
        let first = try body(try fetcher(server.url()).fetchBlocking())
        first.remove()
        guard case .notModified(let again) = try fetcher(server.url(), validators: first.fetch.validators).fetchBlocking() else {
            Issue.record("the same body again is a no-op"); return
        }
        #expect(again.status == 200 && again.validators.sha256 == first.fetch.validators.sha256)
        #expect(server.requests.last?.header("if-none-match") == nil)
    }

    @Test func temporaryFailuresAreRetried() throws {
        let server = try TestHTTPServer { request in
            switch request.index {
            case 0, 1: .init(status: 503, text: "busy")
            case 2: .init(status: 429, headers: [("Retry-After", "1")], text: "slow down")
            default: .init(text: Self.feed)
            }
        }
        defer { server.stop() }
        let started = Date()
        let result = try body(try fetcher(server.url()).fetchBlocking())
        result.remove()
        #expect(result.fetch.attempts == 4 && server.requests.count == 4)
        #expect(Date().timeIntervalSince(started) >= 1, "Retry-After: 1 was honoured")
    }

    @Test func failuresOutlastingTheDeadlineSayTryLater() throws {
        let server = try TestHTTPServer { _ in .init(status: 503, text: "down for maintenance") }
        defer { server.stop() }
        let started = Date()
        let error = #expect(throws: FetchError.self) { try fetcher(server.url(), deadline: "2s").fetchBlocking() }
        let elapsed = Date().timeIntervalSince(started)
        guard case .tryLater(let url, let attempts, let problem, _)? = error else { Issue.record("expected try later, got \(String(describing: error))"); return }
        #expect(error?.exitStatus.rawValue == 75 && attempts >= 2 && problem == "HTTP 503" && url == server.url().absoluteString)
        #expect(elapsed < 4, "ended near the 2 s deadline, not after")
    }

    @Test func anotherClientErrorIsPermanent() throws {
        let server = try TestHTTPServer { _ in .init(status: 404, text: "{\"error\": \"no such dataset\"}") }
        defer { server.stop() }
        let error = #expect(throws: FetchError.self) { try fetcher(server.url()).fetchBlocking() }
        #expect(error == .refused(url: server.url().absoluteString, status: 404, firstBytes: "{\"error\": \"no such dataset\"}"))
        #expect(error?.exitStatus.rawValue == 69 && server.requests.count == 1)
    }

    @Test func anHTMLPageIsNotTheFeed() throws {
        let server = try TestHTTPServer { _ in .init(headers: [("Content-Type", "text/html")], text: "<html><body>Please log in</body></html>") }
        defer { server.stop() }
        let error = #expect(throws: FetchError.self) { try fetcher(server.url()).fetchBlocking() }
        guard case .notTheFeed(_, let type, let first)? = error else { Issue.record("expected not the feed"); return }
        #expect(type == "text/html" && first.contains("Please log in") && error?.exitStatus.rawValue == 65)
    }

    @Test func aBodyCutShortIsNeverKept() throws {
        let server = try TestHTTPServer { _ in .init(body: Array(Self.feed.utf8), cutAfter: 20) }
        defer { server.stop() }
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("importer-spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let error = #expect(throws: FetchError.self) { try fetcher(server.url(), deadline: "2s", spool: spool).fetchBlocking() }
        guard case .tryLater(_, let attempts, let problem, _)? = error else { Issue.record("expected try later, got \(String(describing: error))"); return }
        #expect(attempts >= 2 && problem.contains("cut short after 20 bytes"), "a cut body is retried")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, "no partial body left behind")
    }

    @Test func aStalledBodyTimesOut() throws {
        let server = try TestHTTPServer { _ in .init(body: Array(Self.feed.utf8), stallAfter: 10) }
        defer { server.stop() }
        let started = Date()
        let error = #expect(throws: FetchError.self) { try fetcher(server.url(), deadline: "3s").fetchBlocking() }
        #expect(error?.exitStatus.rawValue == 75)
        #expect(Date().timeIntervalSince(started) < 6, "the idle timeout and the deadline bound a stalled server")
    }

    @Test func redirectsAreFollowedButNotInALoop() throws {
        let server = try TestHTTPServer { request in
            switch request.uri {
            case "/old": .init(status: 301, headers: [("Location", "/feed")])
            case "/feed": .init(text: Self.feed)
            case "/a": .init(status: 302, headers: [("Location", "/b")])
            default: .init(status: 302, headers: [("Location", "/a")])
            }
        }
        defer { server.stop() }
        let moved = try body(try fetcher(server.url("/old")).fetchBlocking())
        moved.remove()
        #expect(moved.fetch.status == 200)
        let error = #expect(throws: FetchError.self) { try fetcher(server.url("/a")).fetchBlocking() }
        guard case .redirect(_, let reason)? = error else { Issue.record("expected a redirect error"); return }
        #expect(reason.contains("loop") && error?.exitStatus.rawValue == 69)
    }

    @Test func aSecretHeaderIsSentButNeverShown() throws {
        let server = try TestHTTPServer { request in
            request.header("authorization") == "Bearer tok-123" ? .init(status: 401, text: "expired") : .init(status: 400, text: "no auth")
        }
        defer { server.stop() }
        var request = FetchRequest(url: server.url())
        request.headers = [("Authorization", .environment("IMPORTER_TEST_TOKEN"))]
        var fetcher = HTTPFetcher(request: request, spoolDirectory: Self.spool)
        fetcher.environment = ["IMPORTER_TEST_TOKEN": "Bearer tok-123"]
        let error = #expect(throws: FetchError.self) { try fetcher.fetchBlocking() }
        #expect(error?.description.contains("401") == true && error?.description.contains("tok-123") == false)
        fetcher.environment = [:]
        let missing = #expect(throws: FetchError.self) { try fetcher.fetchBlocking() }
        #expect(missing == .secret("the environment variable IMPORTER_TEST_TOKEN is not set") && missing?.exitStatus.rawValue == 78)
    }

    @Test func aGzipBodyIsKeptDecompressed() throws {
        let gzip: [UInt8] = try Self.gzip(Self.feed)
        let server = try TestHTTPServer { _ in .init(headers: [("Content-Encoding", "gzip")], body: gzip) }
        defer { server.stop() }
        let result = try body(try fetcher(server.url()).fetchBlocking())
        defer { result.remove() }
        #expect(try String(contentsOfFile: result.file, encoding: .utf8) == Self.feed)
        #expect(server.requests.first?.header("accept-encoding")?.contains("gzip") == true)
    }

    @Test func httpsTrustsTheGivenCAAndNoOther() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("importer-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try TestCertificates(in: directory)
        let tls = TLSConfiguration.makeServerConfiguration(certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.serverCertificate).map { .certificate($0) },
                                                           privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.serverKey, format: .pem)))
        let server = try TestHTTPServer(tls: tls) { _ in .init(text: Self.feed) }
        defer { server.stop() }
        var trusting = fetcher(server.url())
        trusting.request.limits.caFile = certificates.authority
        let result = try body(try trusting.fetchBlocking())
        result.remove()
        #expect(result.fetch.status == 200)
        var wrong = fetcher(server.url())
        wrong.request.limits.caFile = certificates.otherAuthority
        // The client retries a failed handshake until the connect timeout, then names its error.
        wrong.request.limits.connectTimeout = FetchDuration(milliseconds: 2000)
        let error = #expect(throws: FetchError.self) { try wrong.fetchBlocking() }
        guard case .transport(_, let reason)? = error else { Issue.record("expected a TLS failure, got \(String(describing: error))"); return }
        #expect(reason.hasPrefix("TLS failed") && error?.exitStatus.rawValue == 69 && server.requests.count == 1, "not retried")
    }

    @Test func aSecretHeaderStaysWithItsOrigin() throws {
        let other = try TestHTTPServer { request in .init(text: request.header("authorization") == nil ? Self.feed : "leaked") }
        defer { other.stop() }
        let server = try TestHTTPServer { request in
            request.uri == "/moved" ? .init(status: 302, headers: [("Location", other.url().absoluteString)]) : .init(text: Self.feed)
        }
        defer { server.stop() }
        var request = FetchRequest(url: server.url("/moved"))
        request.headers = [("Authorization", .environment("TOKEN"))]
        var fetcher = HTTPFetcher(request: request, spoolDirectory: Self.spool)
        fetcher.environment = ["TOKEN": "Bearer tok-9"]
        let result = try body(try fetcher.fetchBlocking())
        defer { result.remove() }
        #expect(server.requests.first?.header("authorization") == "Bearer tok-9", "sent to its own origin")
        #expect(other.requests.count == 1 && other.requests.first?.header("authorization") == nil, "not carried to another origin")
        #expect(try String(contentsOfFile: result.file, encoding: .utf8) == Self.feed)
    }

    @Test func bodiesPastTheSizeOrExpansionLimitAreRefused() throws {
        let big = Array(repeating: UInt8(ascii: " "), count: 200_000)
        let server = try TestHTTPServer { request in
            request.uri == "/bomb" ? .init(headers: [("Content-Encoding", "gzip")], body: (try? Self.gzip(String(repeating: " ", count: 2_000_000))) ?? [])
                : .init(body: big)
        }
        defer { server.stop() }
        var large = fetcher(server.url("/large"))
        large.request.limits.maxBytes = 100_000
        let tooLarge = #expect(throws: FetchError.self) { try large.fetchBlocking() }
        guard case .tooLarge(_, let reason)? = tooLarge else { Issue.record("expected too large, got \(String(describing: tooLarge))"); return }
        #expect(reason.contains("larger than 100000 bytes") && tooLarge?.exitStatus.rawValue == 65)
        let bomb = #expect(throws: FetchError.self) { try fetcher(server.url("/bomb")).fetchBlocking() }
        guard case .tooLarge(_, let expansion)? = bomb else { Issue.record("expected a refused expansion, got \(String(describing: bomb))"); return }
        #expect(expansion.contains("expands more than 100 times"))
    }

    @Test func aSecretFileThatIsEmptyIsAnErrorNotAnEmptyHeader() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("importer-secret-\(UUID().uuidString)").path
        try "\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: FetchError.self) { try SecretValue.file(path).resolve() }
        #expect(error == .secret("the file \(path) is empty") && error?.exitStatus.rawValue == 78)
    }

    /// `text` compressed by the system's gzip.
    static func gzip(_ text: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    /// A live proxy: an http URL goes to it in absolute form, as curl sends it, with the proxy's
    /// credentials as Basic; an https URL is tunnelled with CONNECT. The test server, standing in
    /// for the proxy, refuses both, which fails the fetch for good, the proxy named. A host
    /// `NO_PROXY` lists is fetched directly.
    @Test func anHTTPProxyFromTheEnvironmentIsUsedUnlessNoProxyListsTheHost() throws {
        let proxy = try TestHTTPServer { _ in .init(status: 403, text: "") }
        defer { proxy.stop() }
        let origin = try TestHTTPServer { _ in .init(headers: [("Content-Type", "application/json")], text: Self.feed) }
        defer { origin.stop() }
        var through = fetcher(try #require(URL(string: "http://feeds.example.invalid/fireball.api")), deadline: "1s")
        through.environment = ["HTTP_PROXY": "http://squid:s3cret@127.0.0.1:\(proxy.port)", "NO_PROXY": "localhost"]
        let refused = #expect(throws: FetchError.self) { try through.fetchBlocking() }
        #expect(proxy.requests.first?.method == "GET" && proxy.requests.first?.uri == "http://feeds.example.invalid/fireball.api", "absolute form")
        #expect(proxy.requests.first?.header("host") == "feeds.example.invalid")
        #expect(proxy.requests.first?.header("proxy-authorization") == "Basic " + Data("squid:s3cret".utf8).base64EncodedString())
        #expect(refused?.description.contains("s3cret") == false)
        #expect(refused?.exitStatus == .unavailable, "\(String(describing: refused))")
        #expect(refused?.description.contains("through the proxy 127.0.0.1:\(proxy.port)") == true, "\(String(describing: refused))")
        #expect(proxy.requests.count == 1, "not retried")

        var tunnelled = fetcher(try #require(URL(string: "https://feeds.example.invalid/fireball.api")), deadline: "1s")
        tunnelled.environment = ["HTTPS_PROXY": "127.0.0.1:\(proxy.port)"]
        let noTunnel = #expect(throws: FetchError.self) { try tunnelled.fetchBlocking() }
        #expect(proxy.requests.last?.method == "CONNECT" && proxy.requests.last?.uri == "feeds.example.invalid:443")
        // A proxy's refusal is for good: named, with its address, and not retried until the deadline (75).
        #expect(noTunnel?.exitStatus == .unavailable, "\(String(describing: noTunnel))")
        #expect(noTunnel?.description.contains("the proxy 127.0.0.1:\(proxy.port) refused to open a tunnel (CONNECT) to feeds.example.invalid:443") == true,
                "\(String(describing: noTunnel))")
        #expect(proxy.requests.count == 2, "not retried")

        let before = proxy.requests.count
        var direct = fetcher(origin.url())
        direct.environment = ["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "example.org, 127.0.0.1"]
        let fetched = try body(try direct.fetchBlocking())
        fetched.remove()
        #expect(origin.requests.count == 1 && proxy.requests.count == before, "NO_PROXY: straight to the origin")
    }

    /// A secret query parameter is added to each request to the source's origin, and appears in
    /// nothing importer reports: not in the fetch's URL, not in an error.
    @Test func aSecretQueryParameterIsSentButNeverShown() throws {
        let server = try TestHTTPServer { request in
            request.uri.contains("apiKey=k%2By%3D1") ? .init(status: 404, text: "no such feed") : .init(status: 401, text: "key missing: \(request.uri)")
        }
        defer { server.stop() }
        var request = FetchRequest(url: server.url("/quakes?limit=5"))
        request.parameters = [("apiKey", .environment("QUAKE_KEY"))]
        var fetcher = HTTPFetcher(request: request, spoolDirectory: Self.spool)
        fetcher.environment = ["QUAKE_KEY": "k+y=1"]
        let error = #expect(throws: FetchError.self) { try fetcher.fetchBlocking() }
        #expect(server.requests.first?.uri == "/quakes?limit=5&apiKey=k%2By%3D1", "sent, percent-encoded")
        #expect(error?.exitStatus == .unavailable && error?.description.contains("404") == true, "\(String(describing: error))")
        #expect(error?.description.contains("k+y") == false && error?.description.contains("apiKey") == false)
        fetcher.environment = [:]
        let missing = #expect(throws: FetchError.self) { try fetcher.fetchBlocking() }
        #expect(missing?.description.contains("QUAKE_KEY is not set") == true)
    }
}
