import Foundation
import PostgresNIO

/// Commits by other processes, counted from PostgreSQL notifications: every importer write
/// transaction sends `pg_notify(channel)` just before COMMIT (delivered only if it commits); the
/// store LISTENs on the channel the first time `commitMarker()` is asked, and counts the
/// notifications that come from other sessions. The count is `watch`'s commit marker (SQLite's
/// `PRAGMA data_version`): no polling of tables.
final class CommitNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int64 = 0
    private var ownBackend: Int32 = 0
    private(set) var isListening = false

    /// The channel of the store in `schema` (one per store, so stores sharing a database do not
    /// wake each other).
    static func channel(schema: String) -> String { "importer_commit_" + schema }

    var value: Int64 { lock.withLock { count } }

    /// Starts counting notifications on `channel` from sessions other than `backend`.
    func listen(on connection: PostgresConnection, channel: String, ownBackend backend: Int32) {
        lock.withLock {
            ownBackend = backend
            isListening = true
        }
        connection.addListener(channel: channel) { [weak self] _, notification in
            guard let self else { return }
            self.lock.withLock { if notification.backendPID != self.ownBackend { self.count += 1 } }
        }
    }
}
