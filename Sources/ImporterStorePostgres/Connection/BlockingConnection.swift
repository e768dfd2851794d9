import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport
import Logging
import PostgresNIO
import Synchronization

/// One PostgreSQL connection used synchronously: each call sends its request through postgres-nio's
/// async API and blocks the calling thread on the answer (`blocking`; see Docs/ARCHITECTURE.md,
/// "Synchronous, and where async meets it").
///
/// Invariant: never called from one of the event loop's threads (the store's caller is a command's
/// own thread), nor by two threads at once, except `close` (from a signal's thread). Errors are
/// `PostgresFailure`s carrying the statement and the server's SQLSTATE.
final class BlockingConnection: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Set once the connection failed: later calls fail at once instead of waiting on a closed
    /// channel (a statement sent there may never be answered); the server has rolled back.
    private let lost = Atomic<Bool>(false)
    /// The batches still being copied (`copy(into:columns:data:)`), finished before any other request.
    private let copies: CopyQueue
    /// The request being waited for, abandoned when the channel closes (`request`).
    private let watch = Mutex(RequestWatch())

    private struct RequestWatch {
        var isClosed = false
        var abandon: (@Sendable (any Error) -> Void)?
    }

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
        copies = CopyQueue(connection: connection, logger: logger)
        connection.closeFuture.whenComplete { [weak self] _ in self?.channelClosed() }
    }

    private static func lostError(sql: String?) -> PostgresFailure {
        PostgresFailure(sqlState: nil, message: "the connection was lost", sql: sql, isConnectionFailure: true)
    }

    /// The channel has closed (the server ended the session, the network failed, or `close`):
    /// the request being waited for fails at once (the COPYs too: `CopyQueue`). postgres-nio may
    /// never answer a request written while its channel is torn down (the request is dropped with
    /// the write: vapor/postgres-nio#487, reverted in #501), so the close, not the answer, ends
    /// the wait.
    private func channelClosed() {
        lost.store(true, ordering: .relaxed)
        let abandon = watch.withLock { watch in
            watch.isClosed = true
            defer { watch.abandon = nil }
            return watch.abandon
        }
        abandon?(Self.lostError(sql: nil))
    }

    /// Sends one request (`operation`: the query and the reading of its answer) and blocks until
    /// its answer, or until the channel closes, whichever comes first (`channelClosed`).
    func request<T: Sendable>(_ sql: String, _ operation: @escaping @Sendable () async throws -> T) throws(PostgresFailure) -> T {
        let executor = CallingThreadExecutor<T>()
        let isClosed = watch.withLock { watch in
            if !watch.isClosed { watch.abandon = { executor.abandon(with: $0) } }
            return watch.isClosed
        }
        defer { watch.withLock { $0.abandon = nil } }
        if isClosed { throw failure(Self.lostError(sql: sql), sql: sql) }
        do {
            return try executor.run(operation)
        } catch {
            throw failure(error, sql: sql)
        }
    }

    var isLost: Bool { lost.load(ordering: .relaxed) }

    /// Connects and authenticates (TLS as `sslmode` says: `PostgresTLS`); the error names host
    /// and database, never the password.
    static func connect(to location: PostgresLocation, timeoutSeconds: Int64 = 10) throws(StoreError) -> BlockingConnection {
        let logger = Logger(label: "importer.postgres") { _ in SwiftLogNoOpLogHandler() }
        var configuration = try configuration(for: location)
        configuration.options.connectTimeout = .seconds(timeoutSeconds)
        configuration.options.additionalStartupParameters = [("search_path", PostgresStoreSchema.q(location.schema)), ("application_name", "importer")]
        do {
            let settings = configuration
            let connection = try blocking {
                try await PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(), configuration: settings, id: 1, logger: logger)
            }
            return BlockingConnection(connection: connection, logger: logger)
        } catch {
            let reason = PostgresTLS.failureReason(error, location: location) ?? Self.connectReason(PostgresFailure(error, sql: nil))
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
    private static func connectReason(_ error: PostgresFailure) -> String {
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
        try? Self.blocking { try await self.connection.close() }
    }

    /// Before each request: waits for the queued COPYs (a statement must see the rows copied
    /// before it, and their error is the caller's), then throws at once when the connection was
    /// lost (a request written to a channel the server closed is never answered).
    func checkAlive(_ sql: String, finishingCopies: Bool = true) throws(PostgresFailure) {
        if finishingCopies { try finishCopy() }
        if connection.isClosed { lost.store(true, ordering: .relaxed) }
        if isLost { throw PostgresFailure(sqlState: nil, message: "the connection was lost", sql: sql, isConnectionFailure: true) }
    }

    /// The error for `error` met running `sql`, remembering a lost connection.
    func failure(_ error: any Error, sql: String) -> PostgresFailure {
        let failure = PostgresFailure(error, sql: sql)
        if failure.isConnectionFailure { lost.store(true, ordering: .relaxed) }
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

    /// Runs one statement without parameters (a utility statement such as `BEGIN`, `SET LOCAL`,
    /// `CREATE …`, or DML whose count is not wanted). One statement only: the extended protocol
    /// refuses a string of several (SQLSTATE 42601); callers send each statement of a list in turn.
    func execute(_ sql: String, finishingCopies: Bool = true) throws(PostgresFailure) {
        try checkAlive(sql, finishingCopies: finishingCopies)
        try request(sql) {
            for try await _ in try await self.connection.query(PostgresQuery(unsafeSQL: sql), logger: self.logger) {}
        }
    }

    /// Runs one statement with `$1…` parameters and returns its rows as values.
    @discardableResult
    func rows(_ sql: String, _ arguments: [Value] = []) throws(PostgresFailure) -> [[Value]] {
        try checkAlive(sql)
        let query = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(arguments))
        return try request(sql) {
            var values: [[Value]] = []
            for try await row in try await self.connection.query(query, logger: self.logger) { values.append(try Self.values(row)) }
            return values
        }
    }

    /// The number of rows a statement affected (INSERT, UPDATE, DELETE), from the server's command
    /// tag. postgres-nio's `async` query does not expose the tag (vapor/postgres-nio#504, open), so
    /// this is the one request made through its row-callback `query`, whose future is awaited in
    /// the task (never `wait()`ed).
    @discardableResult
    func affected(_ sql: String, _ arguments: [Value] = []) throws(PostgresFailure) -> Int {
        try checkAlive(sql)
        let query = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(arguments))
        return try request(sql) {
            try await self.connection.query(query, logger: self.logger) { _ in }.get().rows ?? 0
        }
    }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ arguments: [Value] = []) throws(PostgresFailure) -> Value? {
        try rows(sql, arguments).first?.first
    }

    /// The first column of the first row as an integer (0 for none or NULL).
    func integer(_ sql: String, _ arguments: [Value] = []) throws(PostgresFailure) -> Int64 {
        switch try scalar(sql, arguments) {
        case .integer(let value)?: value
        case .real(let value)?: Int64(value)
        case .text(let text)?: Int64(text) ?? 0
        default: 0
        }
    }

    /// Queues `data` (COPY rows: text format lines, or with `binary` `CopyBinary`'s rows) for
    /// `table`'s `columns` (`CopyQueue`) and returns before the server has taken it: an error in
    /// the data is thrown by a later `copy` or by the next request.
    func copy(into table: String, columns: [String], binary: Bool = false, data: ByteBuffer) throws(PostgresFailure) {
        try checkAlive("COPY \(table) FROM STDIN", finishingCopies: false)
        do {
            try copies.send(into: table, columns: columns, binary: binary, data: data)
        } catch {
            throw failure(error.error, sql: "COPY \(error.table) FROM STDIN")
        }
    }

    /// Waits until every queued batch is in its table; throws the error of a COPY.
    func finishCopy() throws(PostgresFailure) {
        do {
            try copies.finish()
        } catch {
            throw failure(error.error, sql: "COPY \(error.table) FROM STDIN")
        }
    }

    /// The one bridge from the synchronous store to postgres-nio's async API: runs `operation` on
    /// a task and blocks this thread until it ends, running the task's jobs on this very thread
    /// (`CallingThreadExecutor`). The task must not need a thread of Swift's cooperative pool:
    /// this thread may be one of the pool's (a test's, or an async caller's), and when the pool's
    /// other threads are blocked too (tests run in parallel; `PostgresBlockingCallTests`), a task
    /// waiting for one would never run, and this wait would never end. Never call it from an event
    /// loop thread (the answer is read there).
    static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        try CallingThreadExecutor<T>().run(operation)
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
