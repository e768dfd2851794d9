import CSQLite
import Foundation
import ImporterModel

/// The records one entity's import has written so far, each with where its key was first met in
/// the run (its feed and record index in 4 bytes): 4 bytes per record id, in pages of 4,096 ids
/// allocated when first written, so a run writing a few records of a large store holds a few
/// pages (a reload of a million records, 4 MB). A place past what 4 bytes hold (a 65th feed, a
/// record past the 67 millionth) is kept as unknown: its repeat is still found, named less
/// precisely.
///
/// It finds keys repeated across batches and feeds (a record written twice) and names their first
/// occurrence, gives sync mode the records no feed holds, and counts the unchanged ones.
///
/// SQL reaches it through `importer_seen(slot, id)` (see `SeenRegistry`): 1 when the run wrote
/// record `id` (every record it inserted included), else 0.
final class SeenRecords {
    /// The last record id assigned before the run.
    let lastIDBefore: Int64
    /// Its number in the store's `SeenRegistry`, the first argument of `importer_seen`.
    let slot: Int
    /// Per record id up to `lastIDBefore`, in pages (nil: none written): 0 when the run has not
    /// written it, else its first occurrence's `Self.value`, or `unknown`.
    private var stored: [[UInt32]?]
    private static let pageBits = 12
    /// The same for the records the run inserted, at `id - lastIDBefore - 1`, in pages appended as
    /// needed: one growing array would, at each doubling, briefly hold its old and new storage
    /// (a first load of 5,000,000 records: 16 MiB more at its peak).
    private var inserted: [[UInt32]] = []
    private static let unknown = UInt32.max
    /// Records dropped or merged because their key was already written in the run (rejected ones
    /// not counted).
    var duplicates = 0

    /// What `mark` found.
    enum Mark: Equatable {
        /// The run had not written the record.
        case new
        /// The run had written it; where its key was first met, when known.
        case again(FeedRecord?)
    }

    init(lastIDBefore: Int64, slot: Int) {
        self.lastIDBefore = max(lastIDBefore, 0)
        self.slot = slot
        stored = [[UInt32]?](repeating: nil, count: Int(self.lastIDBefore >> Int64(Self.pageBits)) + 1)
    }

    /// Marks record `id` as written by `origin` (nil: unknown), unless the run wrote it before.
    @inline(__always)
    func mark(_ id: Int64, origin: FeedRecord?) -> Mark {
        guard id > 0 else { return .again(nil) }
        guard id <= lastIDBefore else { return .again(Self.record(insertedValue(Int(id - lastIDBefore - 1)))) }
        let value = storedValue(id)
        guard value == 0 else { return .again(Self.record(value)) }
        setStored(id, Self.value(origin))
        return .new
    }

    /// Makes `origin` where record `id`'s key was first met (a record the run inserted, or one a
    /// later feed merged into).
    func set(_ id: Int64, origin: FeedRecord?) {
        guard id > 0 else { return }
        if id <= lastIDBefore { return setStored(id, Self.value(origin)) }
        let index = Int(id - lastIDBefore - 1)
        let page = index >> Self.pageBits
        while inserted.count <= page { inserted.append([UInt32](repeating: 0, count: 1 << Self.pageBits)) }
        inserted[page][index & (1 << Self.pageBits - 1)] = Self.value(origin)
    }

    private func insertedValue(_ index: Int) -> UInt32 {
        let page = index >> Self.pageBits
        return page < inserted.count ? inserted[page][index & (1 << Self.pageBits - 1)] : Self.unknown
    }

    @inline(__always)
    private func storedValue(_ id: Int64) -> UInt32 {
        stored[Int(id >> Int64(Self.pageBits))]?[Int(id & (1 << Int64(Self.pageBits) - 1))] ?? 0
    }

    private func setStored(_ id: Int64, _ value: UInt32) {
        let page = Int(id >> Int64(Self.pageBits))
        if stored[page] == nil { stored[page] = [UInt32](repeating: 0, count: 1 << Self.pageBits) }
        stored[page]?[Int(id & (1 << Int64(Self.pageBits) - 1))] = value
    }

    /// The feed (6 bits) and 1 + the record index (26 bits) of `origin`; `unknown` past them.
    private static func value(_ origin: FeedRecord?) -> UInt32 {
        guard let origin, origin.feed >= 0, origin.feed < 64, origin.recordIndex >= 0, origin.recordIndex < (1 << 26) - 2 else { return unknown }
        return UInt32(origin.feed) << 26 | UInt32(origin.recordIndex + 1)
    }

    private static func record(_ value: UInt32) -> FeedRecord? {
        guard value != 0, value != unknown else { return nil }
        return FeedRecord(feed: Int(value >> 26), recordIndex: Int(value & 0x03FF_FFFF) - 1)
    }

    /// Whether the run wrote record `id` (every record it inserted included).
    @inline(__always)
    func contains(_ id: Int64) -> Bool {
        guard id > 0, id <= lastIDBefore else { return id > lastIDBefore }
        return storedValue(id) != 0
    }

    /// How many stored records the run wrote.
    var storedCount: Int { stored.reduce(0) { count, page in count + (page?.reduce(0) { $0 + ($1 != 0 ? 1 : 0) } ?? 0) } }

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
    func register(on connection: SQLiteConnection) throws(SQLiteError) {
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
