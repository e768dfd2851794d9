import ImporterModel
import ImporterSupport

/// A backend that runs caller-written SQL read-only (`importer query`). The backend guarantees
/// the read-only part at its connection (SQLite: opened read-only with `PRAGMA query_only`), not
/// by reading the SQL: a statement that would write fails in the database itself.
public protocol ReadOnlyQuerying: AnyObject {
    /// Runs one SQL statement with its named parameters (`:name`, `@name` or `$name`, given
    /// without the prefix): `columns` gets the result's column names once, then `row` each row.
    /// Errors of the statement are `QueryError`; errors of the bodies pass through.
    func query(_ sql: String, parameters: [String: String], columns: ([String]) throws -> Void, row: ([Value]) throws -> Void) throws
}

/// Why a read-only query did not run.
public enum QueryError: Error, Sendable, RemedialError {
    /// The statement would write; the database refused it.
    case writeRefused(String)
    /// The database could not run the statement (syntax, unknown table, …).
    case failed(String)
    /// More than one statement, or none.
    case notOneStatement
    /// A parameter the statement names was not given, one given is not in the statement, or the
    /// statement uses positional parameters.
    case parameters(ParameterProblem)
    /// The store could not be opened for the query.
    case store(StoreError)

    /// What is wrong with a statement's parameters.
    public enum ParameterProblem: Sendable, Equatable {
        /// Positional parameters (`marker`: `?`, `$1`) cannot be bound by name.
        case positional(marker: String)
        /// The statement uses this parameter, and no value was given for it.
        case missing(String)
        /// A value was given for this parameter, which the statement does not have.
        case unused(String)
    }

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .writeRefused(let reason): "query refused: the store is opened read-only for queries, and this statement would write (\(reason))"
        case .failed(let reason): "query failed: \(reason)"
        case .notOneStatement: "query: give exactly one SQL statement"
        case .parameters(.positional(let marker)): "query: positional parameters (\(marker)) cannot be bound; \(words(.nameParameters))"
        case .parameters(.missing(let name)): "query: the statement uses :\(name); \(words(.bindParameter(name)))"
        case .parameters(.unused(let name)): "query: \(words(.unusedParameter(name))): the statement has no parameter :\(name)"
        case .store(let error): error.message(words)
        }
    }
}

extension Store {
    /// Runs one read-only SQL statement on the store (see `ReadOnlyQuerying`).
    public func query(_ sql: String, parameters: [String: String] = [:], columns: ([String]) throws -> Void, row: ([Value]) throws -> Void) throws {
        try backend.query(sql, parameters: parameters, columns: columns, row: row)
    }
}

extension QueryError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .parameters: .usage
        case .writeRefused, .failed, .notOneStatement: .badInput
        case .store(let error): error.exitStatus
        }
    }
}
