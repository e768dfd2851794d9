import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

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
            let entities = try registeredEntities()
            while current < PostgresStoreSchema.version {
                for statement in PostgresStoreSchema.migration(from: current, entities: entities) { try connection.execute(statement) }
                current += 1
            }
            try setMetadata([("schema_version", dialect.metadataValue(current))])
            return .commit(())
        }
    }

    func storedSchemaVersion() throws -> Int64 {
        try metadataInteger("schema_version")
    }
}
