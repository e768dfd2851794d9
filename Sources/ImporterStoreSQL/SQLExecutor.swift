import ImporterModel

/// Runs the shared SQL on one backend's connection, inside the store transaction the caller
/// holds. Implementations may cache prepared statements by their text.
public protocol SQLExecutor {
    /// The rows of a query, values decoded as `Value`s.
    func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]]
    /// Runs a statement that returns no rows.
    func execute(_ sql: String, _ arguments: [Value]) throws
}
