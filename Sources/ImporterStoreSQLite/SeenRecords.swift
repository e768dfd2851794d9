import CSQLite
import Foundation

/// The stored records one entity's import has written so far: one bit per record id that existed
/// before the run (records the run inserts have ids above `lastIDBefore` and count as written).
///
/// It finds keys repeated across batches and feeds (a record written twice), gives sync mode the
/// records no feed holds, and counts the unchanged ones, in `lastIDBefore / 8` bytes: 125 KB per
/// million stored records, where a table of the keys cost a B-tree insert per record.
///
/// SQL reaches it through `importer_seen(slot, id)` (see `SeenRegistry`): 1 when the run wrote
/// record `id`, else 0.
final class SeenRecords {
    /// The last record id assigned before the run.
    let lastIDBefore: Int64
    /// Its number in the store's `SeenRegistry`, the first argument of `importer_seen`.
    let slot: Int
    private var bits: [UInt64]
    /// Records dropped or merged because their key was already written in the run.
    var duplicates = 0

    init(lastIDBefore: Int64, slot: Int) {
        self.lastIDBefore = max(lastIDBefore, 0)
        self.slot = slot
        bits = [UInt64](repeating: 0, count: Int(self.lastIDBefore / 64) + 1)
    }

    /// Marks stored record `id` as written; false when the run had already written it (or inserted
    /// it: a key met again).
    @inline(__always)
    func mark(_ id: Int64) -> Bool {
        guard id > 0, id <= lastIDBefore else { return false }
        let (word, bit) = (Int(id >> 6), UInt64(1) << UInt64(id & 63))
        guard bits[word] & bit == 0 else { return false }
        bits[word] |= bit
        return true
    }

    /// Whether the run wrote record `id` (every record it inserted included).
    @inline(__always)
    func contains(_ id: Int64) -> Bool {
        guard id > 0, id <= lastIDBefore else { return id > lastIDBefore }
        return bits[Int(id >> 6)] & (UInt64(1) << UInt64(id & 63)) != 0
    }

    /// How many stored records the run wrote.
    var storedCount: Int { bits.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The SQL condition, over the entity table, of stored records the run did not write.
    var unseenCondition: String { "importer_seen(\(slot), \"id\") = 0" }
}

/// The `SeenRecords` of the import open on a connection, by slot; the user data of the
/// connection's `importer_seen` function. Emptied when the import ends.
final class SeenRegistry {
    private var slots: [SeenRecords] = []

    /// A new `SeenRecords` in the next slot.
    func add(lastIDBefore: Int64) -> SeenRecords {
        let seen = SeenRecords(lastIDBefore: lastIDBefore, slot: slots.count)
        slots.append(seen)
        return seen
    }

    func removeAll() { slots.removeAll() }

    fileprivate func contains(slot: Int64, id: Int64) -> Bool? {
        guard slot >= 0, slot < Int64(slots.count) else { return nil }
        return slots[Int(slot)].contains(id)
    }

    /// Registers `importer_seen(slot, id)` on `connection`, reading this registry.
    func register(on connection: Connection) throws(SQLiteError) {
        let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, arguments in
            guard let context, let data = sqlite3_user_data(context), count == 2, let arguments else { return }
            let registry = Unmanaged<SeenRegistry>.fromOpaque(data).takeUnretainedValue()
            guard let seen = registry.contains(slot: sqlite3_value_int64(arguments[0]), id: sqlite3_value_int64(arguments[1])) else {
                sqlite3_result_error(context, "importer: importer_seen is only defined during an import", -1)
                return
            }
            sqlite3_result_int(context, seen ? 1 : 0)
        }
        let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
            guard let data else { return }
            Unmanaged<SeenRegistry>.fromOpaque(data).release()
        }
        let data = Unmanaged.passRetained(self).toOpaque()
        let code = sqlite3_create_function_v2(connection.handle, "importer_seen", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, data, function, nil, nil, destroy)
        guard code == SQLITE_OK else { throw SQLiteError(connection: connection.handle, code: code) }
    }
}
