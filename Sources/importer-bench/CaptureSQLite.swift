import CSQLite
import Foundation
import ImporterKit

/// The small SQLite C API wrapper the capture study runs its variants with.
extension CaptureStudy {
    // MARK: - SQLite helpers

    /// A copied SQLite value.
    enum SQLValue: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])

        init(_ value: OpaquePointer?) {
            guard let value else { self = .null; return }
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
            case SQLITE_TEXT:
                let count = Int(sqlite3_value_bytes(value))
                self = .text(sqlite3_value_text(value).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
            case SQLITE_BLOB:
                let count = Int(sqlite3_value_bytes(value))
                self = .blob(sqlite3_value_blob(value).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
            default: self = .null
            }
        }

        /// SQL's `IS`: NULL-safe; numbers compare by value whatever their storage class; text by bytes.
        func isSame(as other: SQLValue) -> Bool {
            switch (self, other) {
            case (.null, .null): true
            case let (.integer(a), .integer(b)): a == b
            case let (.real(a), .real(b)): a == b
            case let (.integer(a), .real(b)), let (.real(b), .integer(a)): Double(a) == b
            case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
            case let (.blob(a), .blob(b)): a == b
            default: false
            }
        }

        func bind(to statement: OpaquePointer, at index: Int32) {
            switch self {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let value): sqlite3_bind_int64(statement, index, value)
            case .real(let value): sqlite3_bind_double(statement, index, value)
            case .text(let value): sqlite3_bind_text(statement, index, value, -1, importer_sqlite_transient())
            case .blob(let bytes):
                bytes.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), importer_sqlite_transient()) }
            }
        }
    }

    /// A connection with the `Baseline`'s pragmas; closed when released.
    final class Database {
        let handle: OpaquePointer

        init(path: String) throws {
            var opened: OpaquePointer?
            let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
            guard code == SQLITE_OK, let opened else {
                let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
                sqlite3_close(opened)
                throw BenchError.failed("cannot open \(path): \(message)")
            }
            handle = opened
            try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=OFF; PRAGMA cache_size=-32768")
        }

        deinit { sqlite3_close_v2(handle) }

        var message: String { String(cString: sqlite3_errmsg(handle)) }

        func execute(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError.failed("\(message) (\(sql.prefix(60)))") }
        }

        func prepare(_ sql: String) throws -> Statement {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw BenchError.failed("\(message) (\(sql.prefix(60)))")
            }
            return Statement(handle: prepared)
        }

        /// All rows of a query, with integer parameters ?1, ?2, ….
        func rows(_ sql: String, _ parameters: Int64...) throws -> [[SQLValue]] {
            let statement = try prepare(sql)
            for (index, value) in parameters.enumerated() { sqlite3_bind_int64(statement.handle, Int32(index + 1), value) }
            var rows: [[SQLValue]] = []
            var code = sqlite3_step(statement.handle)
            while code == SQLITE_ROW {
                rows.append((0..<sqlite3_column_count(statement.handle)).map { SQLValue(sqlite3_column_value(statement.handle, $0)) })
                code = sqlite3_step(statement.handle)
            }
            guard code == SQLITE_DONE else { throw BenchError.failed("\(message) (\(sql.prefix(60)))") }
            return rows
        }

        func integer(_ sql: String) throws -> Int64 {
            guard case .integer(let value) = try rows(sql).first?.first else { throw BenchError.failed("no integer from \(sql.prefix(60))") }
            return value
        }
    }

    /// A prepared statement; finalized when released.
    final class Statement {
        let handle: OpaquePointer

        init(handle: OpaquePointer) { self.handle = handle }

        deinit { sqlite3_finalize(handle) }

        /// Steps a statement that returns no rows, then resets it for the next bindings.
        @inline(__always)
        func run() throws {
            guard sqlite3_step(handle) == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                sqlite3_reset(handle)
                throw BenchError.failed(message)
            }
            sqlite3_reset(handle)
        }
    }
}
