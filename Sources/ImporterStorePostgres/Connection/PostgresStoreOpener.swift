import Foundation
import ImporterModel
import ImporterStore

/// Opens the store in its schema, creating it when it does not exist (and `options.create`):
/// creation runs under an advisory lock so that two processes creating one store at once make one.
struct PostgresStoreOpener {
    let connection: BlockingConnection
    let location: PostgresLocation
    let options: Store.Options

    func openOrCreate() throws {
        if try !exists() {
            guard options.create, !options.readOnly else { throw StoreError.notFound(path: location.description) }
            try create()
        }
        let version = try connection.integer(#"SELECT "value"::bigint FROM importer_metadata WHERE "key" = 'schema_version'"#)
        if version > PostgresStoreSchema.version {
            throw StoreError.newerSchema(path: location.description, found: Int(version), supported: PostgresStoreSchema.version)
        }
    }

    /// Whether the store's tables exist. Read from `pg_tables` (the statement's snapshot), not
    /// with `to_regclass`: its catalog cache would not see a table another process created while
    /// this one waited on the creation lock (an advisory lock does not refresh that cache).
    private func exists() throws -> Bool {
        try connection.integer("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'importer_metadata'",
                               [.text(location.schema)]) > 0
    }

    private func create() throws {
        let schema = PostgresStoreSchema.q(location.schema)
        try connection.execute("BEGIN")
        do {
            _ = try connection.rows("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("importer-create:" + location.schema)])
            if try !exists() {
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(schema)")
                try connection.execute("SET LOCAL search_path TO \(schema)")
                for statement in PostgresStoreSchema.create { try connection.execute(statement) }
                try connection.rows("""
                    INSERT INTO importer_metadata ("key", "value") VALUES ('store_id', $1), ('created_at', $2),
                      ('schema_version', $3), ('last_transaction_number', '0'), ('purged_through', '0'), ('last_run_number', '0')
                    """, [.text(UUID().uuidString.lowercased()), .text(Timestamp.now()), .text(String(PostgresStoreSchema.version))])
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollback()
            throw error
        }
    }
}
