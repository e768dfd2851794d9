import ImporterTestSupport
import Crypto
import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing

/// `importer deliver --webhook`: a server started here verifies every request with the Standard
/// Webhooks algorithm, written out in this test (not importer's code): HMAC-SHA256 with the
/// secret's decoded key over `webhook-id.webhook-timestamp.body`, base64, among the `v1,`
/// signatures of `webhook-signature`, and a timestamp within five minutes.
@Suite struct DeliverWebhookTests {
    static let key = Array("a test key, thirty-two bytes long".utf8)
    static var secret: String { "whsec_" + Data(key).base64EncodedString() }

    /// Whether `request` carries a valid Standard Webhooks signature.
    static func verifies(_ request: TestHTTPServer.Request) -> Bool {
        guard let id = request.header("webhook-id"), let timestamp = request.header("webhook-timestamp"),
              let signatures = request.header("webhook-signature"), let seconds = Double(timestamp),
              abs(Date().timeIntervalSince1970 - seconds) < 300 else { return false }
        let signed = Array("\(id).\(timestamp).".utf8) + request.body
        let expected = Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
        return signatures.split(separator: " ").contains { $0 == "v1,\(expected)" }
    }

    /// A file in `directory` holding the secret (and `ending`), for `--webhook-secret-file`.
    static func secretFile(in directory: TemporaryDirectory, ending: String = "") throws -> String {
        let path = directory.path("hook.secret")
        try Data((secret + ending).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["sqlite", "postgres"]) func everyDeliveryIsSignedAndARetryKeepsItsId(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = backend == "postgres" ? try PostgresTestCluster.start() : nil
        let store = try cluster?.newStoreURL() ?? directory.path("store.sqlite")
        defer { if let cluster { try? cluster.dropStore(store) } }
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 4)
        let secretFile = try Self.secretFile(in: directory, ending: "\n")
        let server = try TestHTTPServer { request in
            if request.index == 0 { return .init(status: 503, headers: [("Retry-After", "1")], text: "warming up") }
            return Self.verifies(request) ? .init(status: 204) : .init(status: 401, text: "bad signature")
        }
        defer { server.stop() }
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--deadline", "30s", "--store", store])
        #expect(run.status == 0, "\(run.stderr)")
        let requests = server.requests
        #expect(requests.count == expected.count + 1)
        #expect(requests.allSatisfy { Self.verifies($0) && $0.method == "POST" && $0.header("content-type") == "application/json" })
        #expect(requests[0].header("webhook-id") == requests[1].header("webhook-id"), "a retry keeps the id")
        let ids = requests.dropFirst().compactMap { $0.header("webhook-id") }
        #expect(Set(ids).count == expected.count)
        let documents = requests.dropFirst().compactMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
        #expect(documents.compactMap { $0["token"] as? String } == expected)
        #expect(documents.compactMap { $0["delivery_id"] as? String } == ids)
        #expect(try DeliverTests.pendingTokens(store).isEmpty)
        #expect(!run.stderr.contains(Self.secret) && !run.stdout.contains(Self.secret))
    }

    @Test func aRefusalStopsAtTheTransactionAndExits65() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 2)
        let secretFile = try Self.secretFile(in: directory)
        let server = try TestHTTPServer { _ in .init(status: 410, text: "this endpoint is gone for good") }
        defer { server.stop() }
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--store", store])
        #expect(run.status == 65 && run.stderr.contains("410") && run.stderr.contains("gone for good") && run.stderr.contains(expected[0]), "\(run.stderr)")
        #expect(server.requests.count == 1)
        #expect(try DeliverTests.pendingTokens(store) == expected)
    }

    /// Webhooks go through the proxy the environment names, as URL feeds do: the test server,
    /// standing in for the proxy, sees the signed POST for the webhook's URL in absolute form with
    /// the proxy's credentials, and refuses it, so nothing is delivered and no token moves; a host `NO_PROXY`
    /// lists is posted to directly.
    @Test func aWebhookGoesThroughTheEnvironmentsProxyUnlessNoProxyListsItsHost() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 2)
        let secretFile = try Self.secretFile(in: directory)
        let proxy = try TestHTTPServer { _ in .init(status: 403, text: "") }
        defer { proxy.stop() }
        let refused = try importer(["deliver", "--consumer", "mailer", "--webhook", "http://hooks.example.invalid/hooks",
                                    "--webhook-secret-file", secretFile, "--deadline", "2s", "--store", store],
                                   environment: ["HTTP_PROXY": "http://squid:s3cret@127.0.0.1:\(proxy.port)", "NO_PROXY": "localhost"])
        #expect(refused.status != 0, "\(refused.stderr)")
        #expect(proxy.requests.first?.method == "POST" && proxy.requests.first?.uri == "http://hooks.example.invalid/hooks",
                "the request went to the proxy in absolute form, as curl sends it")
        #expect(proxy.requests.first?.header("webhook-signature")?.hasPrefix("v1,") == true && proxy.requests.first?.body.isEmpty == false)
        #expect(proxy.requests.first?.header("proxy-authorization") == "Basic " + Data("squid:s3cret".utf8).base64EncodedString())
        #expect(!refused.stderr.contains("s3cret"))
        #expect(try DeliverTests.pendingTokens(store) == expected)

        let server = try TestHTTPServer { request in Self.verifies(request) ? .init(status: 204) : .init(status: 401, text: "bad signature") }
        defer { server.stop() }
        let before = proxy.requests.count
        let direct = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                   "--webhook-secret-file", secretFile, "--store", store],
                                  environment: ["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "example.org, 127.0.0.1"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(server.requests.count == expected.count && proxy.requests.count == before, "NO_PROXY: straight to the receiver")
        #expect(try DeliverTests.pendingTokens(store).isEmpty)
    }

    /// A transaction of 3,000 changes (a body of many 64 KiB chunks, streamed from its file) arrives
    /// whole, with the signature of its bytes.
    @Test func aLargeTransactionIsStreamedAndSignedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let feed = directory.path("large.json")
        try Data(CrashTests.largeFeed(count: 3_000, offset: 0).utf8).write(to: URL(fileURLWithPath: feed))
        try #require(try importer(["consumers", "add", "mailer", "--from", "beginning", "--store", store]).status == 0)
        try #require(try importer(["run", "--no-replay", "--store", store, feed]).status == 0)
        let secretFile = try Self.secretFile(in: directory)
        let server = try TestHTTPServer { request in Self.verifies(request) ? .init(status: 204) : .init(status: 401, text: "bad signature") }
        defer { server.stop() }
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", server.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--store", store])
        #expect(run.status == 0, "\(run.stderr)")
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1 && request.body.count > 4 * (64 << 10) && Self.verifies(request))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect((document["changes"] as? [Any])?.count == 3_000)
        #expect(request.header("content-length") == String(request.body.count))
    }
}
