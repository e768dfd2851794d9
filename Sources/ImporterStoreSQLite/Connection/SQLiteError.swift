import CSQLite
import Foundation
import ImporterStore

/// An error reported by libsqlite3: the primary and extended result codes, the message, and the SQL
/// that was being prepared or run, if any.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CONSTRAINT_UNIQUE`, ...).
    package let extendedCode: Int32
    package let message: String
    package let sql: String?
    /// The operating system's errno behind the failure (0 when none), for open and I/O errors.
    package var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, ...).
    package var code: Int32 { extendedCode & 0xFF }

    /// True when another connection holds the lock this one needed, after the busy timeout.
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    package init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    init(connection: OpaquePointer?, code: Int32, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.init(extendedCode: extended, message: message, sql: sql)
        systemErrno = connection.map { sqlite3_system_errno($0) } ?? 0
    }

    package var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}

extension SQLiteError {
    /// The error as the store reports it above the backend.
    var databaseError: DatabaseError {
        let kind: DatabaseError.Kind = switch code {
        case SQLITE_IOERR, SQLITE_FULL: .io
        case SQLITE_CONSTRAINT: .constraint
        case SQLITE_BUSY, SQLITE_LOCKED: .serialization
        default: .other
        }
        return DatabaseError(backend: .sqlite, code: String(extendedCode), message: message, sql: sql, kind: kind, description: description)
    }
}
