import ImporterModel

/// Runs the shared SQL on one backend's connection, inside the store transaction the caller
/// holds. Implementations may cache prepared statements by their text.
package protocol SQLExecutor {
    /// The rows of a query, values decoded as `Value`s.
    func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]]
    /// Runs a statement that returns no rows.
    func execute(_ sql: String, _ arguments: [Value]) throws
    /// Runs an INSERT, UPDATE or DELETE and returns the number of rows it changed.
    func affected(_ sql: String, _ arguments: [Value]) throws -> Int
}

extension SQLExecutor {
    /// The first column of the first row, or nil when there is no row.
    package func scalar(_ sql: String, _ arguments: [Value] = []) throws -> Value? {
        try rows(sql, arguments).first?.first
    }

    /// The first column of the first row as an integer (0 for none or NULL).
    package func integer(_ sql: String, _ arguments: [Value] = []) throws -> Int64 {
        try scalar(sql, arguments)?.integerValue ?? 0
    }
}

extension Value {
    /// The value as a stored integer: integers as they are, whole reals (PostgreSQL sums come back
    /// as numerics), text parsed (PostgreSQL keeps metadata as text); nil otherwise.
    package var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        case .text(let text): Int64(text)
        case .null: nil
        }
    }
}
