import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `sslmode` and `sslrootcert` against a real server that takes TLS connections only
/// (`PostgresTestCluster.tls`: `hostnossl … reject`, a certificate for 127.0.0.1 and localhost
/// signed by a CA of the test's own). Each run gets a `HOME` of its own, so that no
/// `~/.postgresql/root.crt` of the machine's is read.
@Suite struct PostgresTLSTests {
    /// A TLS cluster's fresh database as `postgres://postgres:hunter2@HOST:PORT/DB` (the cluster
    /// trusts every TLS login: the password is there to prove it is never printed), and a home.
    struct Fixture {
        let cluster: PostgresTestCluster
        let certificates: TestCertificates
        let database: String
        let home: TemporaryDirectory

        init() throws {
            cluster = try PostgresTestCluster.startTLS()
            certificates = try #require(cluster.certificates)
            database = PostgresTestCluster.database(of: try cluster.newStoreURL())
            home = try TemporaryDirectory()
        }

        func url(host: String = "127.0.0.1", _ parameters: String) -> String {
            "postgres://postgres:hunter2@\(host):\(cluster.port)/\(database)?\(parameters)"
        }

        /// `importer arguments --store url` with the fixture's home and `environment`.
        func importer(_ arguments: [String], store url: String, environment: [String: String] = [:]) throws -> Execution {
            try IntegrationTests.importer(arguments + ["--store", url], environment: ["HOME": home.url.path].merging(environment) { $1 })
        }

        func importSample(store url: String, environment: [String: String] = [:]) throws -> Execution {
            try importer(["run", "--no-replay", sample("fireball-2024.json")], store: url, environment: environment)
        }

        /// The failure of an exit-69 command: one line naming host, port and database, no password.
        func expectUnavailable(_ execution: Execution, host: String = "127.0.0.1", saying words: String, _ comment: String) {
            let message = execution.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(execution.status == 69, "\(comment): \(execution.status) \(message)")
            #expect(!message.contains("\n") && message.contains("\(host):\(cluster.port)/\(database)"), "\(comment): \(message)")
            #expect(message.contains(words), "\(comment): \(message)")
            #expect(!message.contains("hunter2"), "\(comment): \(message)")
        }
    }

    /// `require` (and the default, `prefer`) import over TLS; `disable` is refused by the server's
    /// `hostnossl … reject`, one line naming the store.
    @Test func requireImportsAndDisableIsRefused() throws {
        let fixture = try Fixture()
        defer { fixture.home.cleanup() }
        let required = try fixture.importSample(store: fixture.url("sslmode=require"))
        #expect(required.status == 0, "\(required.stderr)")
        #expect(try fixture.cluster.psql("SELECT count(*) FROM fireball", database: fixture.database) == "10")
        let preferred = try fixture.importer(["status"], store: fixture.url("schema=public"))
        #expect(preferred.status == 0, "\(preferred.stderr)")
        let disabled = try fixture.importSample(store: fixture.url("sslmode=disable"))
        fixture.expectUnavailable(disabled, saying: "no encryption", "sslmode=disable")
    }

    /// `verify-full` checks the certificate against the CAs of `sslrootcert`, else
    /// `$PGSSLROOTCERT`, else `~/.postgresql/root.crt`, else the system's: the test's CA is none of
    /// the system's, and a CA that did not sign the certificate does not verify it either.
    @Test func verifyFullTrustsOnlyTheGivenCA() throws {
        let fixture = try Fixture()
        defer { fixture.home.cleanup() }
        let untrusted = try fixture.importSample(store: fixture.url("sslmode=verify-full"))
        fixture.expectUnavailable(untrusted, saying: "certificate could not be verified against the system's CAs", "no sslrootcert")
        let wrong = try fixture.importSample(store: fixture.url("sslmode=verify-full&sslrootcert=\(fixture.certificates.otherAuthority)"))
        fixture.expectUnavailable(wrong, saying: "certificate could not be verified against the CAs in \(fixture.certificates.otherAuthority)", "the other CA")
        let missing = try fixture.importSample(store: fixture.url("sslmode=verify-full&sslrootcert=\(fixture.home.path("none.crt"))"))
        fixture.expectUnavailable(missing, saying: "none.crt (sslrootcert) cannot be read", "a missing file")
        #expect(try fixture.cluster.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'fireball'", database: fixture.database) == "0")

        let given = try fixture.importSample(store: fixture.url("sslmode=verify-full&sslrootcert=\(fixture.certificates.authority)"))
        #expect(given.status == 0, "sslrootcert: \(given.stderr)")
        let environment = try fixture.importer(["status"], store: fixture.url("sslmode=verify-full"), environment: ["PGSSLROOTCERT": fixture.certificates.authority])
        #expect(environment.status == 0, "PGSSLROOTCERT: \(environment.stderr)")
        let system = try fixture.importer(["status"], store: fixture.url("sslmode=verify-full&sslrootcert=system"), environment: ["PGSSLROOTCERT": fixture.certificates.authority])
        #expect(system.status == 69, "sslrootcert=system trusts the system's CAs only: \(system.stderr)")
        let directory = URL(fileURLWithPath: fixture.home.path(".postgresql"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.certificates.authority, toPath: directory.appendingPathComponent("root.crt").path)
        let home = try fixture.importer(["status"], store: fixture.url("sslmode=verify-full"))
        #expect(home.status == 0, "~/.postgresql/root.crt: \(home.stderr)")
        #expect(try fixture.cluster.psql("SELECT count(*) FROM fireball", database: fixture.database) == "10")
    }

    /// `verify-full` also checks that the certificate names the host connected to: localhost
    /// (a DNS name) and 127.0.0.1 (an IP address) are named, 127.0.0.2 (the same server) is
    /// not; `verify-ca` checks the CA only.
    @Test func verifyFullChecksTheHostName() throws {
        let fixture = try Fixture()
        defer { fixture.home.cleanup() }
        let trusted = "sslrootcert=\(fixture.certificates.authority)"
        let byName = try fixture.importSample(store: fixture.url(host: "localhost", "sslmode=verify-full&\(trusted)"))
        #expect(byName.status == 0, "localhost: \(byName.stderr)")
        let other = try fixture.importer(["status"], store: fixture.url(host: "127.0.0.2", "sslmode=verify-full&\(trusted)"))
        fixture.expectUnavailable(other, host: "127.0.0.2", saying: "certificate could not be verified: it does not name the host 127.0.0.2", "127.0.0.2")
        let caOnly = try fixture.importer(["status"], store: fixture.url(host: "127.0.0.2", "sslmode=verify-ca&\(trusted)"))
        #expect(caOnly.status == 0, "verify-ca: \(caOnly.stderr)")
    }

    /// As libpq: `require` checks the CA when a root certificate file is given (or found), and
    /// `$PGSSLMODE` stands in for a URL without `sslmode` (the URL's wins; a bad one is exit 64).
    @Test func requireWithARootCertificateVerifiesAndPGSSLMODEIsRead() throws {
        let fixture = try Fixture()
        defer { fixture.home.cleanup() }
        let wrong = try fixture.importSample(store: fixture.url("sslmode=require&sslrootcert=\(fixture.certificates.otherAuthority)"))
        fixture.expectUnavailable(wrong, saying: "certificate could not be verified against the CAs in \(fixture.certificates.otherAuthority)", "require, other CA")
        let right = try fixture.importSample(store: fixture.url("sslmode=require&sslrootcert=\(fixture.certificates.authority)"))
        #expect(right.status == 0, "require, right CA: \(right.stderr)")
        // 127.0.0.2 is not named by the certificate: require checks the CA, not the host.
        let otherHost = try fixture.importer(["status"], store: fixture.url(host: "127.0.0.2", "sslrootcert=\(fixture.certificates.authority)"),
                                             environment: ["PGSSLMODE": "require"])
        #expect(otherHost.status == 0, "PGSSLMODE=require: \(otherHost.stderr)")

        let disabled = try fixture.importer(["status"], store: fixture.url("schema=public"), environment: ["PGSSLMODE": "disable"])
        fixture.expectUnavailable(disabled, saying: "no encryption", "PGSSLMODE=disable")
        let verifying = try fixture.importer(["status"], store: fixture.url("schema=public"), environment: ["PGSSLMODE": "verify-full"])
        fixture.expectUnavailable(verifying, saying: "could not be verified against the system's CAs", "PGSSLMODE=verify-full")
        let urlWins = try fixture.importer(["status"], store: fixture.url("sslmode=require"), environment: ["PGSSLMODE": "disable"])
        #expect(urlWins.status == 0, "the URL's sslmode wins: \(urlWins.stderr)")
        let bad = try fixture.importer(["status"], store: fixture.url("schema=public"), environment: ["PGSSLMODE": "sometimes"])
        #expect(bad.status == 64 && bad.stderr.contains("$PGSSLMODE must be disable, prefer, require, verify-ca or verify-full"), "\(bad.stderr)")
    }

    /// `require` against a server without TLS (the shared cluster) fails clearly.
    @Test func requireAgainstAServerWithoutTLSFails() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let required = try importer(["status", "--store", url + "?sslmode=require"])
        #expect(required.status == 69 && required.stderr.contains("the server does not accept TLS connections"), "\(required.stderr)")
    }
}
