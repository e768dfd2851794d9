import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
@testable import ImporterStore
import ImporterStoreSQL
@testable import ImporterStorePostgres
@testable import ImporterStoreSQLite
import PostgresTestSupport
import Testing

/// The store's own tables and an entity's change table, declared once (`StoreTables`,
/// `EntityTables`): SQLite keeps the text it was always created with, and both backends create
/// the same columns in the same order.
@Suite(.serialized) struct StoreTablesTests {
    static let tables = ["importer_metadata", "importer_entity", "importer_transaction", "importer_transaction_entity", "importer_consumer",
                         "importer_reject", "importer_view", "importer_source", "importer_change_fireball"]

    @Test func sqliteKeepsTheTextStoresWereCreatedWith() {
        let create = StoreTables(dialect: SQLiteDialect()).create
        #expect(create.first == """
            CREATE TABLE importer_metadata (
              "key" TEXT PRIMARY KEY,
              "value" ANY
            ) STRICT, WITHOUT ROWID
            """)
        #expect(create.contains("CREATE INDEX importer_reject_run ON importer_reject (run)"))
        #expect(create.last == """
            CREATE TABLE IF NOT EXISTS importer_source (
              "url" TEXT PRIMARY KEY,
              "etag" TEXT,
              "last_modified" TEXT,
              "sha256" TEXT,
              "bytes" INTEGER NOT NULL,
              "status" INTEGER NOT NULL,
              "fetched_at" TEXT NOT NULL,
              "transaction_number" INTEGER
            ) STRICT
            """)
        #expect(EntityTables(entity: FireballModel.entity, dialect: SQLiteDialect()).createChangeTable.hasPrefix("""
            CREATE TABLE "importer_change_fireball" (
              "importer_change_id" INTEGER PRIMARY KEY AUTOINCREMENT,
              "importer_transaction_number" INTEGER NOT NULL,
            """))
    }

    @Test func bothBackendsCreateTheSameColumns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let sqlite = try Store.open(directory.path("s.sqlite"))
        let postgres = try Store.open(try PostgresTestCluster.start().newStoreURL())
        for store in [sqlite, postgres] { try store.write { try $0.records.ensureEntities([FireballModel.entity]) } }
        let connection = try #require(sqlite.sqliteConnection)
        let server = try #require(postgres.backend as? PostgresStore)
        for table in Self.tables {
            let onSQLite = try connection.rows("SELECT name FROM pragma_table_info(?1)", [.text(table)]).compactMap { $0.first?.stringValue }
            let onPostgres = try server.connection.rows("""
                SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
                """, [.text(table)]).compactMap { $0.first?.stringValue }
            // PostgreSQL numbers entities as registered in a column; SQLite has the rowid.
            #expect(onSQLite + (table == "importer_entity" ? ["position"] : []) == onPostgres, "\(table)")
            #expect(!onSQLite.isEmpty, "\(table)")
        }
    }
}
