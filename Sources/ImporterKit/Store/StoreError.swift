/// Why the store could not do what was asked.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// Another process holds the write lock and did not release it within the wait.
    case locked(path: String, waitedMilliseconds: Int)
    /// No store exists at the path (and the command does not create one).
    case notFound(path: String)
    /// The file is an SQLite database that `importer` did not create.
    case notAnImporterStore(path: String)
    /// The store was written by a newer `importer` whose schema this one does not know.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The model differs from the store's in a way that would lose data.
    case incompatibleModel(entity: String, reason: String)
    /// A token that is not a token, or belongs to another store.
    case invalidToken(String, reason: String)
    case sqlite(SQLiteError)

    public var description: String {
        switch self {
        case .locked(let path, let waited):
            "store \(path) is locked by another importer run (waited \(Double(waited) / 1000) s)"
        case .notFound(let path):
            "no store at \(path) (run 'importer run' to create one, or pass --store)"
        case .notAnImporterStore(let path):
            "\(path) is an SQLite database that importer did not create; refusing to use it"
        case .newerSchema(let path, let found, let supported):
            "store \(path) has schema version \(found), newer than this importer supports (\(supported)); upgrade importer"
        case .incompatibleModel(let entity, let reason):
            "the model does not match the store for entity \(entity): \(reason)"
        case .invalidToken(let token, let reason):
            "invalid token '\(token)': \(reason)"
        case .sqlite(let error):
            error.description
        }
    }
}
