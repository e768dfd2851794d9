import Foundation
import ImporterModel
import ImporterStore

/// Brings an older store to the current schema (`PostgresStoreSchema.migration`) when it is opened
/// for writing: in one write transaction, under the writer lock (another process may have done it
/// meanwhile), the schema version recorded with the changes. A store opened read-only is read as it
/// is (`schemaVersion`).
extension PostgresStore {
    func migrateIfNeeded() throws {
        let version = try storedSchemaVersion()
        guard version < PostgresStoreSchema.version else { return }
        guard !options.readOnly else {
            schemaVersion = Int(version)
            return
        }
        try write {
            var current = try storedSchemaVersion()
            let entities = try loadEntities()
            while current < PostgresStoreSchema.version {
                for statement in PostgresStoreSchema.migration(from: current, entities: entities) { try connection.execute(statement) }
                current += 1
            }
            try connection.affected(#"UPDATE importer_metadata SET "value" = $1 WHERE "key" = 'schema_version'"#, [.text(String(current))])
            return .commit(())
        }
    }

    private func storedSchemaVersion() throws -> Int64 {
        try connection.integer(#"SELECT "value"::bigint FROM importer_metadata WHERE "key" = 'schema_version'"#)
    }
}
