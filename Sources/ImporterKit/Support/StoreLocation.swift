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
    /// is an SQLite file path. `schema` (`--pg-schema`) overrides the URL's `?schema=`; an SQLite
    /// path has no schema (the command line refuses `--pg-schema` with one).
    public static func open(_ location: String, schema: String? = nil, options: Options = Options()) throws(StoreError) -> Store {
        guard isPostgres(location) else { return try Store(path: location, options: options) }
        return Store(backend: try PostgresStore(location: try PostgresLocation(parsing: location, schema: schema), options: options))
    }
}
