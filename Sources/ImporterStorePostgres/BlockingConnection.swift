import Foundation
import ImporterModel
import ImporterStore
import Logging
import PostgresNIO

/// One PostgreSQL connection used synchronously: each call sends its request and blocks the calling
/// thread on the answer (see Docs/ARCHITECTURE.md, "Synchronous, and where async meets it").
///
/// Invariant: never called from one of the event loop's threads (the store's caller is a command's
/// own thread). Errors are `PostgresError`s carrying the statement and the server's SQLSTATE.
final class BlockingConnection: @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Set once the connection failed: later calls fail at once instead of waiting on a closed
    /// channel (a statement sent there may never be answered); the server has rolled back.
    private(set) var isLost = false
    /// The batches still being copied (`copy(into:columns:data:)`), finished before any other request.
    private let copies: CopyQueue

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
        copies = CopyQueue(connection: connection, logger: logger)
    }

    /// Connects and authenticates (TLS as `sslmode` says: `PostgresTLS`); the error names host
    /// and database, never the password.
    static func connect(to location: PostgresLocation, timeoutSeconds: Int64 = 10) throws(StoreError) -> BlockingConnection {
        let logger = Logger(label: "importer.postgres") { _ in SwiftLogNoOpLogHandler() }
        var configuration = try configuration(for: location)
        configuration.options.connectTimeout = .seconds(timeoutSeconds)
        configuration.options.additionalStartupParameters = [("search_path", PostgresStoreSchema.q(location.schema)), ("application_name", "importer")]
        do {
            let connection = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration, id: 1, logger: logger
            ).wait()
            return BlockingConnection(connection: connection, logger: logger)
        } catch {
            let reason = PostgresTLS.failureReason(error, location: location) ?? Self.connectReason(PostgresError(error, sql: nil))
            throw StoreError.unavailable(location: location.description, reason: reason)
        }
    }

    private static func configuration(for location: PostgresLocation) throws(StoreError) -> PostgresConnection.Configuration {
        if location.isSocketDirectory {
            return .init(unixSocketPath: location.socketPath, username: location.user, password: location.password, database: location.database)
        }
        return .init(host: location.host, port: location.port, username: location.user, password: location.password,
                     database: location.database, tls: try PostgresTLS.mode(for: location))
    }

    /// The reason a connection failed, in the user's words (SQLSTATE classes 28: login, 3D: database;
    /// 28000 is also pg_hba.conf refusing the connection, such as a plain one where TLS is required).
    private static func connectReason(_ error: PostgresError) -> String {
        switch error.sqlState {
        case "28P01": "authentication failed for user (\(error.message))"
        case "28000": "the server refused the login (\(error.message))"
        case "3D000": "the database does not exist (\(error.message))"
        case nil: "cannot connect: \(error.message)"
        default: "\(error.message) (SQLSTATE \(error.sqlState ?? ""))"
        }
    }

    /// Closes the connection (also from another thread, on a signal): the chunk being copied is
    /// let finish first, for up to a second (closing during a COPY traps in postgres-nio), and no
    /// COPY starts after it.
    func close() {
        copies.discard(timeout: 1, closing: true)
        guard !connection.isClosed else { return }
        try? connection.close().wait()
    }

    /// Before each request: waits for the queued COPYs (a statement must see the rows copied
    /// before it, and their error is the caller's), then throws at once when the connection was
    /// lost (a request written to a channel the server closed is never answered).
    func checkAlive(_ sql: String, finishingCopies: Bool = true) throws(PostgresError) {
        if finishingCopies { try finishCopy() }
        if connection.isClosed { isLost = true }
        if isLost { throw PostgresError(sqlState: nil, message: "the connection was lost", sql: sql, isConnectionFailure: true) }
    }

    /// The error for `error` met running `sql`, remembering a lost connection.
    func failure(_ error: any Error, sql: String) -> PostgresError {
        let failure = PostgresError(error, sql: sql)
        if failure.isConnectionFailure { isLost = true }
        return failure
    }

    /// Rolls the transaction back: the queued chunks are dropped, the one being copied is waited
    /// for (up to 10 s; the ROLLBACK queues behind it otherwise), and a COPY's error is forgotten
    /// (it is the caller's error's consequence, or lost with the transaction); errors are ignored:
    /// a lost connection has rolled back already.
    func rollback() {
        copies.discard(timeout: 10)
        try? execute("ROLLBACK", finishingCopies: false)
    }

    /// Runs one or more statements without parameters (simple query protocol).
    func execute(_ sql: String, finishingCopies: Bool = true) throws(PostgresError) {
        try checkAlive(sql, finishingCopies: finishingCopies)
        do {
            _ = try connection.simpleQuery(sql).wait()
        } catch {
            throw failure(error, sql: sql)
        }
    }

    /// Runs one statement with `$1…` parameters and returns its rows as values, and the number of
    /// rows it affected.
    @discardableResult
    func rows(_ sql: String, _ arguments: [Value] = []) throws(PostgresError) -> [[Value]] {
        try checkAlive(sql)
        do {
            let result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(arguments)), logger: logger).wait()
            return try result.rows.map(Self.values)
        } catch {
            throw failure(error, sql: sql)
        }
    }

    /// The number of rows a statement affected (INSERT, UPDATE, DELETE).
    @discardableResult
    func affected(_ sql: String, _ arguments: [Value] = []) throws(PostgresError) -> Int {
        try checkAlive(sql)
        do {
            let result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(arguments)), logger: logger).wait()
            return result.metadata.rows ?? 0
        } catch {
            throw failure(error, sql: sql)
        }
    }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ arguments: [Value] = []) throws(PostgresError) -> Value? {
        try rows(sql, arguments).first?.first
    }

    /// The first column of the first row as an integer (0 for none or NULL).
    func integer(_ sql: String, _ arguments: [Value] = []) throws(PostgresError) -> Int64 {
        switch try scalar(sql, arguments) {
        case .integer(let value)?: value
        case .real(let value)?: Int64(value)
        case .text(let text)?: Int64(text) ?? 0
        default: 0
        }
    }

    /// Queues `data` (COPY text format lines) for `table`'s `columns` (`CopyQueue`) and returns
    /// before the server has taken it: an error in the data is thrown by a later `copy` or by the
    /// next request.
    func copy(into table: String, columns: [String], data: ByteBuffer) throws(PostgresError) {
        try checkAlive("COPY \(table) FROM STDIN", finishingCopies: false)
        do {
            try copies.send(into: table, columns: columns, data: data)
        } catch {
            throw failure(error.error, sql: "COPY \(error.table) FROM STDIN")
        }
    }

    /// Waits until every queued batch is in its table; throws the error of a COPY.
    func finishCopy() throws(PostgresError) {
        do {
            try copies.finish()
        } catch {
            throw failure(error.error, sql: "COPY \(error.table) FROM STDIN")
        }
    }

    /// Runs `operation` on a task and blocks this (non-event-loop) thread until it finishes. The
    /// task runs on `DispatchTaskExecutor`, so that it needs no thread of the cooperative pool,
    /// which this thread may be one of.
    static func blocking(_ operation: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: DispatchTaskExecutor.shared) {
            do { try await operation() } catch { outcome.error = error }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }

    private final class Outcome: @unchecked Sendable {
        var error: (any Error)?
    }

    static func bindings(_ values: [Value]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            }
        }
        return bindings
    }

    /// A row's cells as values (see `value(of:)`).
    static func values(_ row: PostgresRow) throws -> [Value] {
        try row.map(value(of:))
    }
}
