import Foundation
import ImporterStore
import PostgresNIO

/// An error the PostgreSQL server (or the connection to it) reported, with the statement that met
/// it and the server's SQLSTATE (`23505`, `40P01`, …) when the server sent one.
package struct PostgresFailure: Error, Sendable, CustomStringConvertible {
    /// The server's SQLSTATE, nil for a client-side or connection failure.
    package var sqlState: String?
    package var message: String
    /// The statement (nil while connecting).
    package var sql: String?
    /// The connection itself failed (closed, refused, reset), as opposed to one statement.
    package var isConnectionFailure: Bool

    package init(sqlState: String?, message: String, sql: String?, isConnectionFailure: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.isConnectionFailure = isConnectionFailure
    }

    /// The error for `error`, met running `sql`.
    init(_ error: any Error, sql: String?) {
        if let error = error as? PostgresFailure {
            self = error
            if self.sql == nil { self.sql = sql }
            return
        }
        if let legacy = error as? PostgresNIO.PostgresError, case .connectionClosed = legacy {
            // postgres-nio's older error type, which some of its paths still throw when the server
            // ended the session.
            self.init(sqlState: nil, message: "connection closed", sql: sql, isConnectionFailure: true)
            return
        }
        guard let psql = error as? PSQLError else {
            self.init(sqlState: nil, message: "\(error)", sql: sql, isConnectionFailure: error is IOError || error is ChannelError)
            return
        }
        if let info = psql.serverInfo {
            let detail = info[.detail].map { " (\($0))" } ?? ""
            let state = info[.sqlState]
            // Class 08 (connection exception) and 57P01-57P03 (the server ended the session).
            let lost = state.map { $0.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains($0) } ?? false
            self.init(sqlState: state, message: (info[.message] ?? "server error") + detail, sql: sql, isConnectionFailure: lost)
            return
        }
        let closed: Set<PSQLError.Code> = [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown]
        // A closed connection wraps the server's last word (e.g. 57P01, terminated by an administrator).
        if let inner = psql.underlying as? PSQLError, inner.serverInfo != nil {
            var nested = PostgresFailure(inner, sql: sql)
            nested.isConnectionFailure = nested.isConnectionFailure || closed.contains(psql.code)
            self = nested
            return
        }
        self.init(sqlState: nil, message: psql.underlying.map(Self.describe) ?? "\(psql.code)", sql: sql, isConnectionFailure: closed.contains(psql.code))
    }

    /// A short text for a low-level error (`connection refused` rather than a type dump).
    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return describe(first.error)
        }
        return "\(error)"
    }

    package var description: String {
        "PostgreSQL error \(sqlState ?? "(client)"): \(message)" + (sql.map { " (in: \($0.prefix(300)))" } ?? "")
    }

    /// Backend-neutral, for `StoreError.database`.
    var databaseError: DatabaseError {
        let kind: DatabaseError.Kind
        if isConnectionFailure {
            kind = .connection
        } else if let sqlState, ["53100", "58030"].contains(sqlState) /* disk full, I/O error */ {
            kind = .io
        } else if sqlState?.hasPrefix("23") == true {
            kind = .constraint
        } else if ["40001", "40P01", "55P03"].contains(sqlState ?? "") {
            kind = .serialization
        } else {
            kind = .other
        }
        return DatabaseError(backend: .postgresql, code: sqlState, message: message, sql: sql, kind: kind, description: description)
    }
}
