import Foundation
import ImporterModel
import ImporterStore

/// The PostgreSQL backend of a store: the store's tables in one schema of one database, reached
/// through one connection held for the store's life (see Docs/ARCHITECTURE.md).
///
/// Invariants: one writer per store at a time, through a transaction-level advisory lock keyed by
/// the schema (`write`); readers use a REPEATABLE READ snapshot and never wait for it; every error
/// is a `StoreError` naming the store by `location` (never its password).
package final class PostgresStore {
    package typealias Options = Store.Options

    package let location: PostgresLocation
    package let options: Options
    package private(set) var storeID = UUID()
    package let directory: String? = nil
    package internal(set) var entities: [EntityDescription] = []
    /// The schema version the store is read with (older only when opened read-only).
    var schemaVersion = PostgresStoreSchema.version
    /// The names of the change tables' own columns, as the store's schema version has them.
    package var changeColumns: ChangeColumns { PostgresStoreSchema.changeColumns(version: schemaVersion) }
    let connection: BlockingConnection
    let commits = CommitNotifications()

    /// Connects to `location` and opens (or, as `options` say, creates) the store in its schema.
    package init(location: PostgresLocation, options: Options = Options()) throws(StoreError) {
        self.location = location
        self.options = options
        connection = try BlockingConnection.connect(to: location)
        do {
            try PostgresStoreOpener(connection: connection, location: location, options: options).openOrCreate()
            guard case .text(let id)? = try connection.scalar(#"SELECT "value" FROM importer_metadata WHERE "key" = 'store_id'"#),
                  let uuid = UUID(uuidString: id) else { throw StoreError.notAnImporterStore(path: location.description, backend: .postgresql) }
            storeID = uuid
            try migrateIfNeeded()
            entities = try registeredEntities()
        } catch {
            connection.close()
            throw storeError(from: error)
        }
    }

    deinit { connection.close() }

    package var path: String { location.description }

    /// The store error for an error met while using the store: connection failures are
    /// `unavailable`, server errors `database` errors carrying the SQL and SQLSTATE.
    package func storeError(from error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        let failure = PostgresFailure(error, sql: nil)
        if failure.isConnectionFailure { return .unavailable(location: location.description, reason: "the connection was lost: \(failure.message)") }
        return .database(failure.databaseError)
    }

    package func interrupt() {
        connection.close()
    }
}
