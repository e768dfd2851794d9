import ImporterStore

extension Store {
    /// Opens (or creates, as `options` say) the SQLite store at `path`.
    package convenience init(path: String, options: Options = Options()) throws(StoreError) {
        self.init(backend: try SQLiteStore(path: path, options: options))
    }

    /// The SQLite connection, for the tests and the benchmark that inspect an SQLite store
    /// directly (nil for another backend).
    package var sqliteConnection: SQLiteConnection? { (backend as? SQLiteStore)?.connection }
}
