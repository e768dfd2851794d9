import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// `importer query`: caller-written SQL on a connection of its own that SQLite keeps read-only:
/// opened with `SQLITE_OPEN_READONLY` and `PRAGMA query_only = 1`, so any write is refused by
/// SQLite whatever the SQL says (importer never parses it). One statement per call.
extension SQLiteStore: ReadOnlyQuerying {
    package func query(_ sql: String, parameters: [String: String], columns: ([String]) throws -> Void, row: ([Value]) throws -> Void) throws {
        let connection = try queryConnection()
        let statement = try Self.prepareOne(sql, on: connection)
        try Self.bind(parameters, to: statement)
        try columns((0..<statement.columnCount).map(statement.columnName))
        do {
            while try statement.step() {
                try row((0..<statement.columnCount).map(statement.value(at:)))
            }
        } catch let error as SQLiteError {
            throw Self.queryError(error)
        }
    }

    /// A new read-only, query-only connection to this store's file (immutable in a directory this
    /// user cannot write, as the store itself opens read-only there).
    private func queryConnection() throws(QueryError) -> SQLiteConnection {
        do {
            var connection = try SQLiteConnection(path: path, create: false, readOnly: true)
            do {
                _ = try connection.integer("SELECT count(*) FROM sqlite_master")
            } catch let error as SQLiteError where error.extendedCode == 1544 || error.extendedCode == 1288 {
                guard !FileManager.default.fileExists(atPath: path + "-wal") else { throw error }
                connection = try SQLiteConnection(uri: SQLiteConnection.immutableURI(path))
            }
            try connection.execute("PRAGMA query_only = 1")
            Self.refuseTrackedWrites(on: connection)
            connection.setBusyTimeout(milliseconds: Int32(clamping: options.busyTimeoutMilliseconds))
            return connection
        } catch {
            throw .store(storeError(from: error))
        }
    }

    /// The functions the entity tables' write guards call, as stubs: a write statement then
    /// prepares, and SQLite refuses it as the write it is (the connection is read-only) instead
    /// of failing on a function this connection lacks. They are never reached by a read.
    private static func refuseTrackedWrites(on connection: SQLiteConnection) {
        // ATTACH (and VACUUM INTO, which attaches its target) would open or create another file.
        sqlite3_set_authorizer(connection.handle, { _, action, _, _, _, _ in
            action == SQLITE_ATTACH ? SQLITE_DENY : SQLITE_OK
        }, nil)
        for name in ["importer_transaction", "importer_writer"] {
            sqlite3_create_function_v2(connection.handle, name, 0, SQLITE_UTF8, nil, { context, _, _ in
                sqlite3_result_error(context, "entity tables are written only by importer", -1)
            }, nil, nil, nil)
        }
    }

    /// The statement of `sql`, which must hold exactly one (comments and blanks aside).
    private static func prepareOne(_ sql: String, on connection: SQLiteConnection) throws(QueryError) -> SQLiteStatement {
        var firstLength = 0
        var rest = ""
        var code = SQLITE_OK
        sql.withCString { text in
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            code = sqlite3_prepare_v2(connection.handle, text, -1, &handle, &tail)
            if let tail { firstLength = text.distance(to: tail); rest = String(cString: tail) }
            sqlite3_finalize(handle)
        }
        guard code == SQLITE_OK else { throw queryError(SQLiteError(connection: connection.handle, code: code)) }
        guard firstLength > 0, isBlank(rest) else { throw .notOneStatement }
        let first = String(decoding: Array(sql.utf8.prefix(firstLength)), as: UTF8.self)
        do {
            return try SQLiteStatement(connection: connection, sql: first)
        } catch {
            throw queryError(error)
        }
    }

    /// Whether SQL text holds nothing but blanks, semicolons and comments.
    private static func isBlank(_ sql: String) -> Bool {
        QueryText.afterBlanksAndComments(Substring(sql), skipping: [";"]).isEmpty
    }

    /// Binds `:name` parameters: a whole number as an integer, anything else as text.
    private static func bind(_ parameters: [String: String], to statement: SQLiteStatement) throws(QueryError) {
        var used = Set<String>()
        for index in stride(from: Int32(1), through: sqlite3_bind_parameter_count(statement.handle), by: 1) {
            guard let raw = sqlite3_bind_parameter_name(statement.handle, index) else {
                throw .parameters(.positional(marker: "?"))
            }
            let name = String(String(cString: raw).dropFirst())
            guard let value = parameters[name] else { throw .parameters(.missing(name)) }
            used.insert(name)
            statement.bind(QueryText.parameterValue(value), at: index)
        }
        if let unused = parameters.keys.sorted().first(where: { !used.contains($0) }) {
            throw .parameters(.unused(unused))
        }
    }

    private static func queryError(_ error: SQLiteError) -> QueryError {
        error.code == SQLITE_READONLY || error.code == SQLITE_AUTH ? .writeRefused(error.message) : .failed(error.message)
    }
}
