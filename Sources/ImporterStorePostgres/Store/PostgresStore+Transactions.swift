import Foundation
import ImporterModel
import ImporterStore
import PostgresNIO

/// Write and read transactions: one writer per store through a transaction-level advisory lock
/// keyed by the store's schema, polled up to the busy timeout (`--wait`); readers take a
/// REPEATABLE READ snapshot and never wait for it.
extension PostgresStore {
    /// How often a waiting writer retries the advisory lock.
    static let lockPollMilliseconds = 50

    package func write<T>(_ body: () throws -> TransactionCompletion<T>) throws -> T {
        try begin("BEGIN ISOLATION LEVEL READ COMMITTED")
        do {
            try takeWriterLock()
            // The entity tables' guard lets writes through only inside importer's transactions.
            try connection.rows("SELECT set_config('importer.transaction', 'open', true)")
            switch try body() {
            case .commit(let result):
                try connection.rows("SELECT pg_notify($1, '')", [.text(CommitNotifications.channel(schema: location.schema))])
                try connection.execute("COMMIT")
                return result
            case .rollback(let result):
                connection.rollback()
                try? reloadEntities()
                return result
            }
        } catch {
            connection.rollback()
            try? reloadEntities()
            throw isDatabaseError(error) ? storeError(from: error) : error
        }
    }

    package func read<T>(_ body: () throws -> T) throws -> T {
        try begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            connection.rollback()
            throw isDatabaseError(error) ? storeError(from: error) : error
        }
    }

    /// A value that changes when another process commits to the store (see `CommitNotifications`).
    package func commitMarker() throws(StoreError) -> Int64 {
        if !commits.isListening {
            try mapErrors {
                let channel = CommitNotifications.channel(schema: location.schema)
                let backend = Int32(clamping: try connection.integer("SELECT pg_backend_pid()"))
                commits.listen(on: connection.connection, channel: channel, ownBackend: backend)
                try connection.execute("LISTEN \(PostgresStoreSchema.q(channel))")
            }
        }
        return commits.value
    }

    /// Errors of the database or the connection are mapped to store errors; the body's own errors
    /// (a malformed feed, an unknown view, a refused sync) go through unchanged.
    private func isDatabaseError(_ error: any Error) -> Bool {
        error is PostgresFailure || error is PSQLError || error is IOError || error is ChannelError
    }

    private func begin(_ statement: String) throws(StoreError) {
        do { try connection.execute(statement) } catch { throw storeError(from: error) }
    }

    /// Takes the store's writer lock, waiting up to the busy timeout; `StoreError.locked` naming
    /// the holder (its application name and server pid) after it.
    private func takeWriterLock() throws {
        let key = Value.text("importer-writer:" + location.schema)
        let deadline = Date().addingTimeInterval(Double(options.busyTimeoutMilliseconds) / 1000)
        while true {
            if try connection.integer("SELECT pg_try_advisory_xact_lock(hashtext($1))::int", [key]) == 1 { return }
            guard Date() < deadline else { break }
            usleep(useconds_t(Self.lockPollMilliseconds * 1000))
        }
        let holder = try? connection.scalar("""
            SELECT a.application_name || ' (server pid ' || a.pid || ')' FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objid::int = hashtext($1) AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            LIMIT 1
            """, [key])
        throw StoreError.locked(path: location.description, waitedMilliseconds: options.busyTimeoutMilliseconds, holder: holder?.stringValue)
    }
}
