import Foundation
import ImporterStore
import ImporterStorePostgres
import ImporterStoreSQLite

extension Store {
    /// Whether `location` names a PostgreSQL store (`postgres://…`, `postgresql://…`) rather than
    /// an SQLite file.
    public static func isPostgres(_ location: String) -> Bool {
        PostgresLocation.isPostgres(location)
    }

    /// Opens the store at `location`: a PostgreSQL URL opens the PostgreSQL backend, anything else
    /// is an SQLite file path.
    public static func open(_ location: String, options: Options = Options()) throws(StoreError) -> Store {
        guard isPostgres(location) else { return try Store(path: location, options: options) }
        return Store(backend: try PostgresStore(location: try PostgresLocation(parsing: location), options: options))
    }
}
