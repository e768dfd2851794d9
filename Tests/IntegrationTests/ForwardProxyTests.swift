import ImporterTestSupport
import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Testing

/// Feeds through a real HTTP proxy (Debian's tinyproxy, started here on loopback), configured as
/// squid commonly is: CONNECT only to port 443, Basic credentials required. An `http://` feed goes
/// to it in absolute form, as curl sends it, and imports; a proxy's 407 is 69 naming the proxy.
@Suite struct ForwardProxyTests {
    static let tinyproxy = "/usr/bin/tinyproxy"
    static let installed = FileManager.default.isExecutableFile(atPath: tinyproxy)

    /// A tinyproxy on a free loopback port, stopped by `stop`.
    struct Proxy {
        let process: Process
        let port: Int

        init(in directory: TemporaryDirectory, credentials: (String, String)? = nil) throws {
            port = try PostgresTestCluster.freePort()
            let config = directory.path("tinyproxy-\(port).conf")
            try Data("""
                Port \(port)
                Listen 127.0.0.1
                Timeout 30
                Allow 127.0.0.1
                ConnectPort 443
                LogLevel Error
                \(credentials.map { "BasicAuth \($0.0) \($0.1)" } ?? "")

                """.utf8).write(to: URL(fileURLWithPath: config))
            process = Process()
            process.executableURL = URL(fileURLWithPath: ForwardProxyTests.tinyproxy)
            process.arguments = ["-d", "-c", config]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try Self.waitUntilListening(port)
        }

        /// SIGKILL: tinyproxy inherits the test process's blocked signals, SIGTERM among them.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        static func waitUntilListening(_ port: Int) throws {
            for _ in 0 ..< 100 {
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                close(socket)
                if connected == 0 { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            throw ProxyDidNotStart(port: port)
        }
    }

    struct ProxyDidNotStart: Error { let port: Int }

    static let feed = NetworkFaultTests.quakes(1 ... 5)

    @Test(.enabled(if: installed, "needs Debian's tinyproxy"))
    func anHTTPFeedThroughAProxyThatRefusesConnectToPort80Imports() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let origin = try TestHTTPServer { _ in .init(headers: [("Content-Type", "application/x-ndjson")], text: Self.feed) }
        defer { origin.stop() }
        let proxy = try Proxy(in: directory, credentials: ("squid", "s3cret"))
        defer { proxy.stop() }
        try Data(NetworkFaultTests.model.utf8).write(to: URL(fileURLWithPath: directory.path("model.yaml")))
        let store = directory.path("store.sqlite")
        let feedURL = origin.url("/quakes.ndjson").absoluteString
        let proxied = ["HTTP_PROXY": "http://squid:s3cret@127.0.0.1:\(proxy.port)", "NO_PROXY": ""]

        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--deadline", "20s", feedURL], environment: proxied, directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try NetworkFaultTests.records(store) == 5)
        #expect(origin.requests.count == 1 && origin.requests.first?.header("via")?.contains("tinyproxy") == true,
                "the origin was reached through the proxy: \(origin.requests.map(\.headers))")

        // Without its credentials the proxy answers 407: for good (69), the proxy named, not retried until the deadline.
        let refused = try importer(["run", "--store", store, "--model", "model.yaml", "--deadline", "20s", feedURL],
                                   environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": ""], directory: directory.url)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("the proxy 127.0.0.1:\(proxy.port) answered 407"), "\(refused.stderr)")
        #expect(origin.requests.count == 1)
    }

    /// Webhooks follow the same rules: an `http://` receiver behind the proxy gets every
    /// transaction, signed, through it; no token moves without its 2xx.
    @Test(.enabled(if: installed, "needs Debian's tinyproxy"))
    func aWebhookThroughTheProxyIsDelivered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try DeliverTests.storeWithHistory(store, in: directory, rounds: 2)
        let secretFile = try DeliverWebhookTests.secretFile(in: directory)
        let receiver = try TestHTTPServer { request in DeliverWebhookTests.verifies(request) ? .init(status: 204) : .init(status: 401, text: "bad signature") }
        defer { receiver.stop() }
        let proxy = try Proxy(in: directory)
        defer { proxy.stop() }
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", receiver.url("/hooks").absoluteString,
                                "--webhook-secret-file", secretFile, "--deadline", "20s", "--store", store],
                               environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(receiver.requests.count == expected.count && receiver.requests.allSatisfy { $0.header("via")?.contains("tinyproxy") == true })
        #expect(try DeliverTests.pendingTokens(store).isEmpty)
    }
}
