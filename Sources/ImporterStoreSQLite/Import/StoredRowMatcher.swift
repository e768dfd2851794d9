import CSQLite
import Foundation
import ImporterModel
import ImporterKeyOrder
import ImporterStore

/// Notes which records of batches in ascending key order the store held unchanged before the
/// import (`UnchangedRowMatcher`): one pass over the entity's unique index, in key order, on a
/// read-only connection of its own, merged with the batches as they come. That connection reads
/// the last committed state (WAL), the one before the import's write transaction.
///
/// A feed out of key order is merged on a thread of its own (`KeyOrderedBatches`); noting there
/// moves the reading of the unchanged records' stored rows off the store's thread, which then
/// reads only the rows of the records that changed (`BatchUpserter`; figures:
/// Docs/PERFORMANCE.md).
///
/// Invariant: a record is noted with a row's id only when its key orders equal to that row's and
/// every supplied attribute provably equals the stored value (`StoredRows.isSame`). A batch whose
/// keys the merge ordered otherwise than the index only makes rows be passed by: their records
/// are noted 0, which `BatchUpserter` reads as "look it up", never as unchanged.
///
/// Made on the import's thread and sent to the merger's (`ReadAheadQueue.merge` takes it as
/// `sending`): one thread at a time holds it, which the compiler checks.
final class StoredRowMatcher: UnchangedRowMatcher {
    private let connection: SQLiteConnection
    private let scan: SQLiteStatement
    /// Positions in the batch of the supplied attributes that are not part of the key.
    private let compared: [Int]
    /// Whether the scan stands on a row; nil before its first step.
    private var onRow: Bool?

    /// The matcher for `entity`'s records supplying `columns` of the store at `path`, or nil when
    /// the store held none of them before the import (`lastIDBefore`) or cannot be read a second
    /// time while the import writes (not WAL), or at all (the upserter then reads every stored row
    /// itself, as without a matcher).
    static func make(path: String, entity: EntityDescription, columns: [Int], lastIDBefore: Int64) -> sending StoredRowMatcher? {
        // As `RecordMapper` places the key in a batch; `note` reads the key at the batch's own positions.
        let keyPositions = entity.keyIndices.compactMap { columns.firstIndex(of: $0) }
        guard lastIDBefore > 0, keyPositions.count == entity.uniqueKey.count else { return nil }
        let (key, compared, selected) = StoredRows.row(of: entity, columns: columns, keyPositions: keyPositions)
        let sql = "SELECT \(selected) FROM \(SQLIdentifier.quoted(entity.tableName)) ORDER BY \(key.joined(separator: ", "))"
        do {
            let connection = try SQLiteConnection(path: path, create: false, readOnly: true)
            // Only a WAL store lets the import write while this connection reads (a store a user
            // switched to a rollback journal would make the import's writes wait for this read).
            guard try connection.scalar("PRAGMA journal_mode") == .text("wal") else { return nil }
            try connection.execute("PRAGMA cache_size = -2048")
            return StoredRowMatcher(connection: connection, scan: try connection.prepare(sql), compared: compared)
        } catch {
            return nil
        }
    }

    private init(connection: SQLiteConnection, scan: SQLiteStatement, compared: [Int]) {
        self.connection = connection
        self.scan = scan
        self.compared = compared
    }

    /// Notes `batch`'s records (in ascending key order, equal keys side by side) that the row of
    /// their key held unchanged, passing the rows before them.
    func note(_ batch: inout RecordBatch) throws {
        var ids = [Int64](repeating: 0, count: batch.count)
        let compared = compared
        try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            var onRow = try onRow ?? scan.step()
            for record in 0..<batch.count {
                var order = 1
                while onRow {
                    order = StoredRows.compareKey(batch, record, base, scan.handle)
                    if order <= 0 { break }
                    onRow = try scan.step()
                }
                if onRow, order == 0, StoredRows.isSame(batch, record, base, compared, scan.handle) { ids[record] = scan.int64(at: 0) }
            }
            self.onRow = onRow
        }
        batch.noteStoredUnchanged(ids)
    }
}
