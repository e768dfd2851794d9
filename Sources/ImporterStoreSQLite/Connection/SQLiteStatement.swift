import CSQLite
import Foundation
import ImporterModel

/// A prepared SQLite statement owned by one `SQLiteConnection`.
///
/// Binding and stepping call the C API directly: this type is on the upsert hot path. Indices are
/// 1-based for parameters and 0-based for result columns, as in SQLite. A statement must not outlive
/// its connection; it is finalized on deinit.
package final class SQLiteStatement {
    package let handle: OpaquePointer
    package let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(connection: connection.handle, code: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    @inline(__always)
    package func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    @inline(__always)
    package func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inline(__always)
    package func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds text that SQLite copies (`SQLITE_TRANSIENT`).
    package func bind(_ value: String, at index: Int32) {
        // The UTF-8 length, not -1: a text holding U+0000 is bound whole.
        guard !value.isEmpty else {
            sqlite3_bind_text(handle, index, "", 0, importer_sqlite_transient())
            return
        }
        var value = value
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                _ = sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), importer_sqlite_transient())
            }
        }
    }

    /// Binds UTF-8 bytes that must stay valid and unchanged until the statement is reset or rebound
    /// (`SQLITE_STATIC`): no copy.
    @inline(__always)
    package func bindText(_ bytes: UnsafePointer<UInt8>, count: Int, at index: Int32) {
        bytes.withMemoryRebound(to: CChar.self, capacity: count) {
            _ = sqlite3_bind_text(handle, index, $0, Int32(count), importer_sqlite_static())
        }
    }

    package func bind(_ value: Value, at index: Int32) {
        switch value {
        case .null: bindNull(index)
        case .integer(let v): bind(v, at: index)
        case .real(let v): bind(v, at: index)
        case .text(let v): bind(v, at: index)
        }
    }

    package func bind(_ values: [Value]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Running

    /// Steps once. Returns true when a row is available, false when the statement is done.
    @inline(__always)
    package func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(connection: connection.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    @inline(__always)
    package func reset() { sqlite3_reset(handle) }

    /// Runs the statement to completion with the given arguments, then resets it.
    package func execute(_ arguments: [Value] = []) throws(SQLiteError) {
        defer { reset() }
        bind(arguments)
        while try step() {}
    }

    /// Runs the statement with the given arguments and calls `body` for each row, then resets it.
    package func forEachRow(_ arguments: [Value] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        defer { reset() }
        bind(arguments)
        while try step() { try body(self) }
    }

    /// The rows of the statement, each as an array of values.
    package func rows(_ arguments: [Value] = []) throws -> [[Value]] {
        var result: [[Value]] = []
        try forEachRow(arguments) { row in
            result.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        return result
    }

    // MARK: Reading columns

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    @inline(__always)
    package func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    package func string(at index: Int32) -> String? {
        // By length, not up to the first NUL: a text holding U+0000 reads back whole.
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))), as: UTF8.self)
    }

    package func value(at index: Int32) -> Value {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        default: return string(at: index).map(Value.text) ?? .null
        }
    }
}
