import PostgresNIO
import Synchronization

/// Commits by other processes, counted from PostgreSQL notifications: every importer write
/// transaction sends `pg_notify(channel)` just before COMMIT (delivered only if it commits); the
/// store LISTENs on the channel the first time `commitMarker()` is asked, and counts the
/// notifications that come from other sessions. The count is `watch`'s commit marker (SQLite's
/// `PRAGMA data_version`): no polling of tables. Notifications arrive on the event loop; the
/// state is behind a `Mutex`.
final class CommitNotifications: Sendable {
    private struct State {
        var count: Int64 = 0
        var ownBackend: Int32 = 0
        var isListening = false
    }

    private let state = Mutex(State())

    /// The channel of the store in `schema` (one per store, so stores sharing a database do not
    /// wake each other).
    static func channel(schema: String) -> String { "importer_commit_" + schema }

    var value: Int64 { state.withLock { $0.count } }

    var isListening: Bool { state.withLock { $0.isListening } }

    /// Starts counting notifications on `channel` from sessions other than `backend`.
    func listen(on connection: PostgresConnection, channel: String, ownBackend backend: Int32) {
        state.withLock {
            $0.ownBackend = backend
            $0.isListening = true
        }
        connection.addListener(channel: channel) { [weak self] _, notification in
            self?.state.withLock { if notification.backendPID != $0.ownBackend { $0.count += 1 } }
        }
    }
}
