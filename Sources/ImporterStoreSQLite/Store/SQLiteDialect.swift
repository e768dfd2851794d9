import ImporterModel
import ImporterStoreSQL

/// SQLite's dialect of the shared SQL: `?N` parameters, `IS` for NULL-safe equality, `total`,
/// integer booleans, BINARY text order, NULL on division by zero, and `rowid` as a row's handle;
/// STRICT tables, AUTOINCREMENT keys, metadata integers as integers, entities in rowid order.
struct SQLiteDialect: SQLDialect {
    func parameter(_ n: Int) -> String { "?\(n)" }
    func nullSafeEqual(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS \(rhs)" }
    func columnType(_ type: AttributeType) -> String { type.sqlType }
    func total(_ value: String) -> String { "total(\(value))" }
    func deltaTotal(_ value: String) -> String { total(value) }
    func average(_ value: String) -> String { "avg(\(value))" }
    /// Without building a string per row: a substring search rules most rows out, then `GLOB`
    /// matches the word whole (first, middle, last or only); a word with `GLOB`'s special characters
    /// is searched between added commas instead.
    func list(_ list: String, contains word: String) -> String {
        guard !word.contains(where: { "*?[]".contains($0) }) else {
            return "instr(',' || \(list) || ',', \(Expression.literal(.text("," + word + ",")))) > 0"
        }
        let patterns = [word + ",*", "*," + word + ",*", "*," + word].map { "\(list) GLOB \(Expression.literal(.text($0)))" }
        return "(instr(\(list), \(Expression.literal(.text(word)))) > 0 AND (\(list) = \(Expression.literal(.text(word))) OR \(patterns.joined(separator: " OR "))))"
    }
    func ordered(_ value: String, type: AttributeType) -> String { value }
    func divide(_ lhs: String, _ rhs: String) -> String { "(\(lhs) / \(rhs))" }
    func value(ofCondition condition: String) -> String { condition }
    func condition(ofValue value: String) -> String { value }
    func bytewise(_ column: String) -> String { column }
    func distinctList(_ column: String) -> String { "group_concat(DISTINCT \(column))" }
    var rowHandle: String { "rowid" }
    func matchRowHandle(_ parameter: String) -> String { "rowid = \(parameter)" }
    func tableOptions(withoutRowID: Bool) -> String { withoutRowID ? " STRICT, WITHOUT ROWID" : " STRICT" }
    func generatedKey(neverReused: Bool) -> String { neverReused ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "INTEGER PRIMARY KEY" }
    var metadataValueType: String { "ANY" }
    func metadataValue(_ integer: Int64) -> Value { .integer(integer) }
    var registrationOrder: String { "rowid" }
    var registrationColumn: String? { nil }
    var addsFilledColumnsInPlace: Bool { false }
    /// Row by row, in the table's order: SQLite finds distinct values by a b-tree insert each,
    /// random where the values are (4 s for 1,000,000 distinct texts, where the whole retype of
    /// them row by row takes 5.5 s).
    var retypesDistinctValues: Bool { false }
    /// SQLite stores a -0 real as 0: equal values are the same value.
    func retypeKey(_ column: String, type: AttributeType) -> String { column }
    func retypeKeyType(_ type: AttributeType) -> String { columnType(type) }
    func lookupIndex(_ name: String, on table: String, column: String) -> String { "CREATE INDEX \(quoted(name)) ON \(table) (\(column))" }

    func isOneOf(_ column: String, _ integers: [Int64], parameter: Int) -> (condition: String, arguments: [Value]) {
        ("\(column) IN (\(integers.map(String.init).joined(separator: ", ")))", [])
    }

    func call(_ function: Expression.Function, _ arguments: [String]) -> String {
        switch function {
        case .year: "CAST(substr(\(arguments[0]), 1, 4) AS INTEGER)"
        case .month: "CAST(substr(\(arguments[0]), 6, 2) AS INTEGER)"
        case .date: "substr(\(arguments[0]), 1, 10)"
        default: "\(function.rawValue)(\(arguments.joined(separator: ", ")))"
        }
    }
}

/// Runs the shared SQL on an SQLite connection, each statement prepared once per executor.
final class SQLiteExecutor: SQLExecutor {
    private let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]

    init(_ connection: SQLiteConnection) { self.connection = connection }

    private func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] { try statement(sql).rows(arguments) }
    func execute(_ sql: String, _ arguments: [Value]) throws { try statement(sql).execute(arguments) }

    func affected(_ sql: String, _ arguments: [Value]) throws -> Int {
        try execute(sql, arguments)
        return connection.changes
    }
}
