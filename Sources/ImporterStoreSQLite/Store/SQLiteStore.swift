import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// The SQLite backend of a store: one SQLite file in WAL mode holding entity tables, their
/// history, and the store's metadata.
///
/// It owns one connection and is used by one task at a time. Writers take the write lock
/// up front (`BEGIN IMMEDIATE`), waiting up to the busy timeout; readers see a consistent snapshot.
/// The store id (a UUID fixed at creation) binds tokens to this store.
package final class SQLiteStore {
    package typealias Options = Store.Options

    package let path: String
    package let connection: SQLiteConnection
    package let options: Options
    package private(set) var storeID = UUID()
    package var directory: String? { URL(fileURLWithPath: path).deletingLastPathComponent().path }
    /// The schema version the store is read with (older only when opened read-only).
    private(set) var schemaVersion = SQLiteStoreSchema.version
    /// The names of the change tables' own columns, as the store's schema version has them.
    package var changeColumns: ChangeColumns { SQLiteStoreSchema.changeColumns(version: schemaVersion) }
    /// The entities the store holds, as registered (the store's own model of itself).
    package var entities: [EntityDescription] = []
    let transactionState = TransactionState()
    /// The records the open import has written, read by `importer_seen` (see `SeenRecords`).
    let seenRegistry = SeenRegistry()
    let capture: ChangeCapture
    /// The file the connection opened (device and inode): a writer checks, once it holds the
    /// lock, that the path still names it (a failed first run removes the store it created).
    private let file: FileIdentity?

    package init(path: String, options: Options = Options()) throws(StoreError) {
        self.path = path
        self.options = options
        if !options.create || options.readOnly, !FileManager.default.fileExists(atPath: path) {
            throw StoreError.notFound(path: path)
        }
        do {
            connection = try Self.openConnection(path: path, options: options)
        } catch {
            throw Self.storeError(from: error, path: path, options: options)
        }
        connection.setBusyTimeout(milliseconds: Int32(clamping: options.busyTimeoutMilliseconds))
        file = FileIdentity(path: path)
        capture = ChangeCapture(connection: connection, transactionState: transactionState)
        capture.install()
        try mapErrors {
            try registerTransactionFunction(on: connection, state: transactionState)
            try seenRegistry.register(on: connection)
            try openSchema()
            try connection.execute("""
                PRAGMA synchronous = NORMAL;
                PRAGMA secure_delete = OFF;
                PRAGMA temp_store = FILE;
                PRAGMA cache_size = -\(Self.cacheKiB);
                """)
            try loadMetadata()
        }
    }

    deinit { capture.uninstall() }

    /// Opens the connection. A read-only open of a WAL store in a directory this user cannot write
    /// fails at the first read (SQLite cannot create the `-shm` file); when no `-wal` file exists
    /// (the database file holds every commit) it is opened immutable instead: a snapshot that is
    /// valid while nobody writes the store, which a user without write access cannot do anyway.
    private static func openConnection(path: String, options: Options) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, create: options.create, readOnly: options.readOnly)
        guard options.readOnly else { return connection }
        do {
            _ = try connection.integer("SELECT count(*) FROM sqlite_master")
            return connection
        } catch let error as SQLiteError where error.extendedCode == 1544 /* READONLY_DIRECTORY */ || error.extendedCode == 1288 /* READONLY_CANTINIT */ {
            guard !FileManager.default.fileExists(atPath: path + "-wal") else { throw error }
            return try SQLiteConnection(uri: SQLiteConnection.immutableURI(path))
        }
    }

    /// The store error for an error thrown while using the store.
    package func storeError(from error: any Error) -> StoreError {
        Self.storeError(from: error, path: path, options: options)
    }

    /// The store error for an SQLite error met on the store at `path`: busy → locked (naming the
    /// holder), not a database, permission or read-only, I/O or disk full; others as they are.
    static func storeError(from error: any Error, path: String, options: Options) -> StoreError {
        guard let error = error as? SQLiteError else {
            return (error as? StoreError) ?? .database(SQLiteError(extendedCode: 1, message: "\(error)").databaseError)
        }
        let systemReason = error.systemErrno != 0 ? String(cString: strerror(error.systemErrno)) : nil
        switch error.code {
        case SQLITE_BUSY, SQLITE_LOCKED:
            let holder = WriterRecord.liveHolder(ofStore: path).map { "\($0.command) (pid \($0.pid), since \($0.since))" }
            return .locked(path: path, waitedMilliseconds: options.busyTimeoutMilliseconds, holder: holder)
        case SQLITE_NOTADB:
            return .notADatabase(path: path)
        case SQLITE_READONLY:
            return .permissionDenied(path: path, reason: "it is read-only to this user (\(systemReason ?? error.message)); commands that only read still work")
        case SQLITE_PERM, SQLITE_AUTH:
            return .permissionDenied(path: path, reason: systemReason ?? error.message)
        case SQLITE_CANTOPEN:
            // SQLite's errno may come from a later call than the failing open: ask the file system.
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !FileManager.default.fileExists(atPath: directory) { return .notFound(path: path) }
            if FileManager.default.fileExists(atPath: path) ? access(path, R_OK) != 0 : access(directory, W_OK | X_OK) != 0 {
                return .permissionDenied(path: path, reason: String(cString: strerror(errno)))
            }
            return .io(path: path, reason: "cannot open: \(systemReason ?? error.message)")
        case SQLITE_IOERR, SQLITE_FULL:
            if error.systemErrno == EACCES || error.systemErrno == EROFS || error.systemErrno == EPERM {
                return .permissionDenied(path: path, reason: systemReason ?? error.message)
            }
            return .io(path: path, reason: error.code == SQLITE_FULL ? "the disk is full" : systemReason ?? error.message)
        default:
            return .database(error.databaseError)
        }
    }

    // MARK: Transactions

    /// Interrupts the statement running on the store (from any thread): it fails, and the
    /// transaction around it rolls back.
    package func interrupt() {
        connection.interrupt()
    }

    /// Runs `body` in a write transaction: takes the store's write lock up front (waiting up to the
    /// busy timeout, then `StoreError.locked` naming the holder), commits when `body` returns and
    /// rolls back when it throws. Every write to the store goes through here.
    package func write<T>(_ body: () throws -> TransactionCompletion<T>) throws -> T {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw storeError(from: error)
        }
        if let file, FileIdentity(path: path) != file {
            try? rollBack()
            throw StoreError.locked(path: path, waitedMilliseconds: options.busyTimeoutMilliseconds,
                                    holder: "a failed first run, which removed the store it had created,")
        }
        WriterRecord.current(command: options.command).write(forStore: path)
        do {
            switch try body() {
            case .commit(let result):
                try connection.execute("COMMIT")
                return result
            case .rollback(let result):
                try rollBack()
                return result
            }
        } catch {
            try? rollBack()
            throw error is SQLiteError ? storeError(from: error) : error
        }
    }

    /// Rolls the write transaction back and forgets what its work left in memory: captured
    /// updates, migrated entities.
    private func rollBack() throws {
        defer {
            capture.reset()
            try? reloadEntities()
        }
        if connection.isInTransaction { try connection.execute("ROLLBACK") }
    }

    /// Runs `body` in a read transaction: one consistent snapshot of the store, never blocked by a
    /// writer, and refusing any write (`PRAGMA query_only`).
    package func read<T>(_ body: () throws -> T) throws -> T {
        do {
            // A read cannot write, whatever its snapshot is cast to: SQLite refuses every change
            // while `query_only` is on.
            try connection.execute("PRAGMA query_only = 1")
            defer { try? connection.execute("PRAGMA query_only = 0") }
            return try connection.transaction(immediate: false, body)
        } catch {
            throw error is SQLiteError ? storeError(from: error) : error
        }
    }

    private func integerPragma(_ name: String) throws -> Int64 {
        try connection.integer("PRAGMA \(name)")
    }

    private func openSchema() throws {
        let tableCount = try connection.scalar("SELECT count(*) FROM sqlite_master")
        let applicationID = try integerPragma("application_id")
        if tableCount != .integer(0) || applicationID != 0 {
            guard applicationID == SQLiteStoreSchema.applicationID else { throw StoreError.notAnImporterStore(path: path, backend: .sqlite) }
        } else {
            guard !options.readOnly else { throw StoreError.notFound(path: path) }
            try create()
        }
        let version = try integerPragma("user_version")
        if version > SQLiteStoreSchema.version {
            throw StoreError.newerSchema(path: path, found: Int(version), supported: SQLiteStoreSchema.version)
        }
        if version < SQLiteStoreSchema.version { try migrate(from: version) }
    }

    /// Brings an older store to the current schema, in one write transaction (another process may
    /// have done it meanwhile). A store opened read-only is read as it is.
    private func migrate(from version: Int64) throws {
        guard !options.readOnly else {
            schemaVersion = Int(version)
            return
        }
        try write {
            var current = try integerPragma("user_version")
            let entities = try registeredEntities()
            while current < SQLiteStoreSchema.version {
                for statement in SQLiteStoreSchema.migration(from: current, entities: entities) { try connection.execute(statement) }
                current += 1
                try connection.execute("PRAGMA user_version = \(current)")
            }
            return .commit(())
        }
    }

    /// The page size of new stores, in bytes.
    static let pageSize = 32768
    /// The page cache of each connection, in KiB: bounded memory whatever the store's size (larger
    /// caches measured no faster for imports). SQLite's alone: not an option of the neutral seam.
    static let cacheKiB = 16 * 1024

    private func create() throws {
        // WAL must be set outside a transaction; it is persistent in the file.
        // 32 KiB pages (SQLite's default is 4 KiB), set before the file has any: the page size of a
        // store is fixed at creation. Fewer page reads and WAL frames made first loads and reloads
        // faster; 16 and 64 KiB were in between (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
        try connection.execute("PRAGMA page_size = \(Self.pageSize)")
        try connection.execute("PRAGMA journal_mode = WAL")
        try write {
            // Another process may have created the store while this one waited for the lock.
            guard try connection.scalar("SELECT count(*) FROM sqlite_master") == .integer(0) else { return .commit(()) }
            for statement in SQLiteStoreSchema.create { try connection.execute(statement) }
            let now = Timestamp.now()
            try connection.execute("INSERT INTO importer_metadata(key, value) VALUES ('store_id', ?), ('created_at', ?), ('last_transaction_number', 0), ('purged_through', 0), ('last_run_number', 0)",
                                   [.text(UUID().uuidString.lowercased()), .text(now)])
            try connection.execute("PRAGMA application_id = \(SQLiteStoreSchema.applicationID)")
            try connection.execute("PRAGMA user_version = \(SQLiteStoreSchema.version)")
            return .commit(())
        }
    }

    private func loadMetadata() throws {
        guard case .text(let id)? = try metadata("store_id"),
              let uuid = UUID(uuidString: id) else {
            throw StoreError.notAnImporterStore(path: path, backend: .sqlite)
        }
        storeID = uuid
        entities = try registeredEntities()
    }

    /// Re-reads the registered entities (after another process may have changed them).
    package func reloadEntities() throws(StoreError) {
        try mapErrors { entities = try registeredEntities() }
    }
}
