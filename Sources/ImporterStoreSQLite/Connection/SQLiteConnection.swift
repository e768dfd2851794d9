import CSQLite
import Foundation
import ImporterModel

/// One connection to an SQLite database file.
///
/// A thin owner of a `sqlite3*` handle: opening, executing SQL, preparing statements, and
/// transactions. It is not thread-safe; a `SQLiteConnection` belongs to one task at a time. The handle is
/// closed on deinit, after all statements prepared from it are gone.
package final class SQLiteConnection {
    package let handle: OpaquePointer
    package let path: String

    /// Opens (and creates, if `create`) the database at `path`.
    package init(path: String, create: Bool = true, readOnly: Bool = false) throws(SQLiteError) {
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
    }

    /// Opens a database read-only by an SQLite URI (`file:…?immutable=1`).
    package init(uri: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(uri, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        path = uri
    }

    /// The URI that opens the file at `path` read-only and immutable (no locks, no `-shm`).
    package static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more SQL statements that take no arguments.
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            var error = SQLiteError(connection: handle, code: code, sql: sql)
            if let message {
                error = SQLiteError(extendedCode: error.extendedCode, message: String(cString: message), sql: sql)
                sqlite3_free(message)
            }
            throw error
        }
    }

    /// Runs one statement with arguments.
    package func execute(_ sql: String, _ arguments: [Value]) throws(SQLiteError) {
        try prepare(sql).execute(arguments)
    }

    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// The first column of the first row, or nil when there is no row.
    package func scalar(_ sql: String, _ arguments: [Value] = []) throws -> Value? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        statement.bind(arguments)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// The first column of the first row as an integer: 0 when there is no row or the value is not
    /// an integer (`count(*)`, `max(…)` over no rows, a missing metadata key).
    package func integer(_ sql: String, _ arguments: [Value] = []) throws -> Int64 {
        if case .integer(let n)? = try scalar(sql, arguments) { return n }
        return 0
    }

    package func rows(_ sql: String, _ arguments: [Value] = []) throws -> [[Value]] {
        try prepare(sql).rows(arguments)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Makes the statement running on this connection (from another thread) fail with
    /// `SQLITE_INTERRUPT`, so that its transaction rolls back. Safe to call from any thread.
    package func interrupt() {
        sqlite3_interrupt(handle)
    }

    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// `PRAGMA data_version`: changes when another connection commits to the file.
    package func dataVersion() throws -> Int64 {
        try integer("PRAGMA data_version")
    }

    /// Runs `body` inside a transaction: `BEGIN IMMEDIATE` for writers (takes the write lock up front,
    /// waiting up to the busy timeout), `BEGIN` for readers. Commits when `body` returns, rolls back
    /// when it throws.
    package func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }
}
