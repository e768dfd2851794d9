import CSQLite
import Foundation
import ImporterSupport

/// One stored row as `UnchangedFilter` keeps it: the hash of its key, the digest of its key and
/// compared values, its id.
struct StoredRowDigest {
    var key: UInt64
    var digest: UInt64
    var id: Int64
}

/// Reads a table's rows into `StoredRowDigest`s, in chunks: `SELECT id, key columns…, compared
/// columns…` (`keyWidth` key columns), hashed by `keyHasher` and `rowHasher`.
struct StoredRowScan: Sendable {
    let keyWidth: Int32
    let keyHasher: ValueHasher
    let rowHasher: ValueHasher
    static let chunk = 4096

    /// Steps `statement` to its end, handing each full chunk (and the last) to `body`.
    func run(_ statement: SQLiteStatement, _ body: (inout [StoredRowDigest]) throws -> Void) throws {
        var rows: [StoredRowDigest] = []
        rows.reserveCapacity(Self.chunk)
        try statement.forEachRow { row in
            var key = keyHasher.start
            var digest = rowHasher.start
            for column in 0..<row.columnCount where column > 0 {
                guard let value = sqlite3_column_value(row.handle, column) else { continue }
                if column <= keyWidth { keyHasher.add(stored: value, &key) }
                rowHasher.add(stored: value, &digest)
            }
            rows.append(StoredRowDigest(key: keyHasher.finish(key), digest: rowHasher.finish(digest), id: row.int64(at: 0)))
            if rows.count == Self.chunk { try body(&rows) }
        }
        if !rows.isEmpty { try body(&rows) }
    }

    /// Scans `sql` (its `?1` bound to `from`) on a connection of its own to the database at `path`,
    /// on a thread of its own, while the caller scans another part of the table: the filter's
    /// scan then takes both cores, the feed's reader being blocked until it is built. The
    /// connection reads the last committed state (WAL), that is the state before the caller's
    /// write transaction: rows that transaction wrote are known to `SeenRecords` anyway.
    final class Helper: Sendable {
        private struct State {
            var chunks: [[StoredRowDigest]] = []
            var finished = false
            var failed = false
            var cancelled = false
        }

        private let state = Monitor(State())
        private static let depth = 8

        init(scan: StoredRowScan, path: String, sql: String, from: Int64) {
            let thread = Thread { [state] in
                var failed = false
                do {
                    let connection = try SQLiteConnection(path: path, create: false, readOnly: true)
                    try connection.execute("PRAGMA cache_size = -2048")
                    let statement = try connection.prepare(sql)
                    statement.bind(from, at: 1)
                    try withExtendedLifetime(connection) {
                        try scan.run(statement) { rows in
                            let cancelled = state.wait { state -> Bool? in
                                state.cancelled ? true : (state.chunks.count < Self.depth ? false : nil)
                            }
                            if cancelled { throw CancellationError() }
                            state.withLock { $0.chunks.append(rows) }
                            rows.removeAll(keepingCapacity: true)
                        }
                    }
                } catch {
                    failed = true
                }
                state.withLock {
                    $0.finished = true
                    $0.failed = failed
                }
            }
            thread.name = "importer filter scan"
            thread.start()
        }

        /// Hands each chunk to `body` as it comes; false when the scan failed (the rest of its
        /// part, past the last row handed over, is then the caller's to scan). Returns once the
        /// helper thread is done.
        func drain(_ body: (inout [StoredRowDigest]) -> Void) -> Bool {
            while true {
                let next = state.wait { state -> (chunk: [StoredRowDigest]?, failed: Bool)? in
                    if !state.chunks.isEmpty { return (state.chunks.removeFirst(), false) }
                    return state.finished ? (nil, state.failed) : nil
                }
                guard var chunk = next.chunk else { return !next.failed }
                if !next.failed { body(&chunk) }
            }
        }

        /// Hands the chunks ready now to `body`, without waiting (between the caller's own chunks).
        func takeReady(_ body: (inout [StoredRowDigest]) -> Void) {
            while var chunk = state.withLock({ $0.chunks.isEmpty ? nil : $0.chunks.removeFirst() }) { body(&chunk) }
        }

        /// Stops the helper and waits until it is done (the caller failed).
        func cancel() {
            state.withLock { $0.cancelled = true }
            _ = state.wait { $0.finished ? true : nil }
        }
    }
}
