import Foundation
import PostgresTestSupport
import Testing

/// `--store postgres://…` against the tests' throwaway PostgreSQL cluster: the store is created in
/// the database, connection failures exit 69 naming host and database, and what the backend does
/// not implement yet is refused (exit 78) before anything is written.
@Suite struct PostgresStoreTests {
    @Test func runCreatesTheStoreThenRefusesToImportYet() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = String(url.split(separator: "/").last ?? "")
        let run = try importer(["run", "--store", url, sample("fireball-2024.json")])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("importing is not supported on PostgreSQL stores yet"), "\(run.stderr)")
        let tables = try cluster.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'", database: database)
        #expect(tables == "importer_consumer,importer_entity,importer_metadata,importer_reject,importer_transaction,importer_transaction_entity,importer_view")
        #expect(try cluster.psql("SELECT count(*) FROM importer_transaction", database: database) == "0")
        let status = try importer(["status", "--store", url])
        #expect(status.status == 78 && status.stderr.contains("status is not supported on PostgreSQL stores yet"), "\(status.stderr)")
    }

    @Test func aStoreInItsOwnSchemaAndFromTheEnvironment() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL(schema: "feeds")
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        _ = try importer(["run", sample("fireball-2024.json")], environment: ["IMPORTER_STORE": url])
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'feeds'", database: database) == "7")
    }

    @Test func readingAStoreThatDoesNotExistIsNoInput() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let history = try importer(["history", "--store", url])
        #expect(history.status == 66, "\(history.stderr)")
    }

    @Test func connectionFailuresExit69WithoutThePassword() throws {
        let cluster = try PostgresTestCluster.start()
        let missing = try importer(["status", "--store", "postgres://postgres:hunter2@127.0.0.1:\(cluster.port)/no_such_database"])
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.stderr.contains("127.0.0.1:\(cluster.port)/no_such_database") && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("hunter2"))
        let down = try importer(["run", "--store", "postgresql://postgres:hunter2@127.0.0.1:1/fireballs", sample("fireball-2024.json")])
        #expect(down.status == 69 && !down.stderr.contains("hunter2"), "\(down.stderr)")
    }
}
