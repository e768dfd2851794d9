import ImporterTestSupport
import Foundation
@testable import ImporterStore
@testable import ImporterStorePostgres
import PostgresNIO
import PostgresTestSupport
import Testing

/// The PostgreSQL backend reaches a real server (the tests' throwaway cluster) and names the
/// server it cannot reach.
@Suite struct PostgresConnectionTests {
    @Test func connectsToTheTestCluster() throws {
        let cluster = try PostgresTestCluster.start()
        let location = try PostgresLocation(parsing: try cluster.newStoreURL())
        let connection = try BlockingConnection.connect(to: location)
        defer { connection.close() }
        #expect(try connection.integer("SELECT $1::bigint + 1", [.integer(41)]) == 42)
        #expect(try connection.scalar("SELECT current_database()") == .text(location.database))
    }

    @Test func anUnreachableServerIsUnavailableAndTheMessageHidesThePassword() throws {
        let location = try PostgresLocation(parsing: "postgres://me:secret@127.0.0.1:1/nope?sslmode=disable")
        #expect(throws: StoreError.self) { try BlockingConnection.connect(to: location) }
        do {
            _ = try BlockingConnection.connect(to: location)
        } catch {
            guard case .unavailable = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("127.0.0.1:1/nope"))
            #expect(!error.description.contains("secret"))
        }
    }

    /// The server ending the session before a statement's answer (postgres-nio's older API says
    /// `connectionClosed`) is a lost connection (exit 69), not an internal error.
    @Test func aSessionClosedByTheServerIsALostConnection() {
        let error = ImporterStorePostgres.PostgresFailure(PostgresNIO.PostgresError.connectionClosed, sql: "BEGIN")
        #expect(error.isConnectionFailure && error.sql == "BEGIN")
        #expect(error.databaseError.isIOFailure)
    }

    @Test func aMissingDatabaseIsNamed() throws {
        let cluster = try PostgresTestCluster.start()
        let location = try PostgresLocation(parsing: "postgres://postgres@127.0.0.1:\(cluster.port)/no_such_db")
        do {
            _ = try BlockingConnection.connect(to: location)
            Issue.record("connected to a missing database")
        } catch {
            #expect(error.description.contains("does not exist"), "\(error)")
        }
    }

    @Test func urlsParseLikeLibpq() throws {
        let location = try PostgresLocation(parsing: "postgresql://ann:p%40ss@db.example:6543/shop?schema=feeds&sslmode=require", environment: [:])
        #expect(location.host == "db.example" && location.port == 6543 && location.user == "ann")
        #expect(location.password == "p@ss" && location.database == "shop" && location.schema == "feeds")
        #expect(location.sslMode == .require)
        #expect(location.description == "postgres://ann@db.example:6543/shop?schema=feeds")
        let fromEnvironment = try PostgresLocation(parsing: "postgres://ann@h/db", environment: ["PGPASSWORD": "x"])
        #expect(fromEnvironment.password == "x" && fromEnvironment.port == 5432)
        #expect(throws: StoreError.self) { try PostgresLocation(parsing: "postgres://a@h/db?schema=bad-name", environment: [:]) }
        #expect(try PostgresLocation(parsing: "postgres://a@h/db", environment: ["PGSSLMODE": "verify-ca"]).sslMode == .verifyCA)
        #expect(try PostgresLocation(parsing: "postgres://a@h/db?sslmode=disable", environment: ["PGSSLMODE": "verify-ca"]).sslMode == .disable)
        let required = try PostgresLocation(parsing: "postgres://a@h/db?sslmode=require&sslrootcert=/ca.crt", environment: [:])
        let system = try PostgresLocation(parsing: "postgres://a@h/db?sslmode=require&sslrootcert=system", environment: [:])
        #expect(required.verifiesCertificate && !system.verifiesCertificate)
    }
}
