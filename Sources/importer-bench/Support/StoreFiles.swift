import Foundation

/// An SQLite store's files: the database and its WAL and shared-memory files.
enum StoreFiles {
    /// Deletes the store's files, if any.
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
