import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL
import PostgresNIO

/// `importer query` on PostgreSQL: the statement runs as a cursor (`DECLARE … CURSOR FOR`) in a
/// `READ ONLY` transaction, fetched in chunks (bounded memory). The server refuses a write either
/// way: a cursor holds one query (SELECT, VALUES, WITH … SELECT), and the transaction is read-only.
/// A role with SELECT privileges only is the stronger guarantee (see Docs/STORE.md, "PostgreSQL stores").
extension PostgresStore: ReadOnlyQuerying {
    static let queryChunk = 1000
    private static let writeKeywords: Set<String> = [
        "insert", "update", "delete", "merge", "create", "drop", "alter", "truncate", "copy", "grant", "revoke",
        "vacuum", "reindex", "cluster", "comment", "lock", "call", "do", "refresh", "security", "import", "reset", "set",
    ]

    package func query(_ sql: String, parameters: [String: String], columns: ([String]) throws -> Void, row: ([Value]) throws -> Void) throws {
        let named = try NamedParameters(sql)
        if let missing = named.names.first(where: { parameters[$0] == nil }) {
            throw QueryError.parameters(.missing(missing))
        }
        if let unused = parameters.keys.sorted().first(where: { !named.names.contains($0) }) {
            throw QueryError.parameters(.unused(unused))
        }
        if let keyword = Self.firstKeyword(named.sql), Self.writeKeywords.contains(keyword) {
            throw QueryError.writeRefused("\(keyword.uppercased()) is not a query; PostgreSQL stores run SELECT, VALUES and WITH … SELECT")
        }
        let arguments = named.names.map { QueryText.parameterValue(parameters[$0] ?? "") }
        try mapQueryErrors { try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
        defer { connection.rollback() }
        try mapQueryErrors { try connection.affected("DECLARE importer_query NO SCROLL CURSOR FOR \(named.sql)", arguments) }
        var first = true
        while true {
            let chunk = try mapQueryErrors { try connection.rowsWithColumns("FETCH \(Self.queryChunk) FROM importer_query") }
            if first { try columns(chunk.columns) }
            first = false
            for values in chunk.rows { try row(values) }
            if chunk.rows.count < Self.queryChunk { break }
        }
    }

    /// The statement's first keyword, lowercased, after blanks, comments and parentheses.
    private static func firstKeyword(_ sql: String) -> String? {
        let word = QueryText.afterBlanksAndComments(Substring(sql), skipping: ["("]).prefix { $0.isLetter }
        return word.isEmpty ? nil : word.lowercased()
    }

    /// Runs `body`, turning the server's refusals into `QueryError`s.
    @discardableResult
    private func mapQueryErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresFailure where !error.isConnectionFailure {
            switch error.sqlState {
            case "25006": throw QueryError.writeRefused(error.message)
            case "0A000" where error.message.contains("data-modifying"): throw QueryError.writeRefused(error.message)
            case "42601" where error.message.contains("multiple commands"): throw QueryError.notOneStatement
            default: throw QueryError.failed(error.message)
            }
        } catch {
            throw QueryError.store(storeError(from: error))
        }
    }
}
