import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// Drops the records a store already holds with exactly their values before they are sorted or
/// upserted: a reload where few records changed then sorts and writes only those few, whatever
/// the feed's key order (figures: Docs/PERFORMANCE.md).
///
/// Built by one scan of the entity's table (in two halves at once from `parallelRows` ids on,
/// `StoredRowScan.Helper`), when the feed first shows itself out of key order
/// (`KeyOrderedBatches`; rows written before are known to `SeenRecords`): per stored row, a hash
/// of its key and a digest of its key and supplied attributes (`ValueHasher`), in an
/// open-addressing table of 16 bytes a slot (20 MiB for a million rows; not built when the ids
/// span more than `maxRows`, nor when the table is empty).
///
/// Invariants:
/// - A record is dropped only when its key's stored row has the same digest (key and every
///   supplied attribute equal, as `IS` compares them, to within a 2⁻⁶⁴ chance) and the run has not
///   written that row: it is marked written (`SeenRecords.mark`) as the upserter would have marked
///   it, so sync deletes, duplicate checks and the unchanged count see it.
/// - Once a record of a key is kept, every later record of that key is kept too (the slot is
///   marked `passed`): the kept one may still be waiting to be sorted, and the upserter must see
///   the key's records in feed order to keep the right one (`duplicates`). Keys written before
///   the filter was built are kept through `SeenRecords`.
/// - Whatever writes the entity's table in an import before its filter is built must mark the
///   rows it writes in `SeenRecords`, as the upserter does (drift and sync deletes come after
///   the feeds): the filter's digests may be those of the rows before the import.
/// - Any doubt keeps the record: a key not found, two stored rows sharing a slot's tag, a
///   value stored in another form (text in a numeric column): the upserter then decides.
final class UnchangedFilter {
    private struct Slot {
        /// The high half of the key's hash.
        var tag: UInt32 = 0
        /// 1 + the row's id less `firstID`, 0 for an empty slot; the top bit marks it `passed`.
        var reference: UInt32 = 0
        var digest: UInt64 = 0
    }

    private static let passed: UInt32 = 1 << 31
    /// The widest id range the filter is built for: 1.2 million ids, at most 26 MiB, so that a
    /// reload stays under 100 MB of peak RSS (a wider table is merged as before).
    static let maxRows = 1_200_000
    /// The smallest id range scanned in two halves at once.
    static let parallelRows = 65_536

    /// The table, owned by the filter (freed in `deinit`): a plain buffer, since an array in a
    /// class property pays an exclusivity check at each access, and this is the hot path.
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let firstID: Int64
    private let keyHasher: ValueHasher
    private let rowHasher: ValueHasher
    /// Positions in a batch of the key attributes, in key order, and of the supplied attributes that
    /// are not part of the key.
    private let keyPositions: [Int]
    private let compared: [Int]
    private let seen: SeenRecords

    /// The filter for `entity`'s records supplying `columns`, or nil when the table held no record
    /// before the run (a first load) or its ids span more than `maxRows`. Only the records stored
    /// before the run are scanned: the ones it inserted are kept through `SeenRecords` anyway.
    static func build(connection: SQLiteConnection, entity: EntityDescription, columns: [Int], seen: SeenRecords) throws -> UnchangedFilter? {
        // As `RecordMapper` places the key in a batch; `dropping` keeps a batch placed otherwise.
        let keyPositions = entity.keyIndices.compactMap { columns.firstIndex(of: $0) }
        guard keyPositions.count == entity.uniqueKey.count, seen.lastIDBefore > 0 else { return nil }
        let table = SQLIdentifier.quoted(entity.tableName)
        // The id range bounds the row count without counting (a count reads the whole key index).
        let bounds = try connection.rows("SELECT min(\"id\"), max(\"id\") FROM \(table) WHERE \"id\" <= ?1", [.integer(seen.lastIDBefore)])
        guard let row = bounds.first, row.count == 2, case .integer(let first) = row[0], case .integer(let last) = row[1],
              last - first < Int64(maxRows) else { return nil }
        let filter = UnchangedFilter(rows: Int(last - first + 1), firstID: first, columns: columns, keyPositions: keyPositions, seen: seen)
        let names = keyPositions.map { columns[$0] } + filter.compared.map { columns[$0] }
        let selected = (["\"id\""] + names.map { SQLIdentifier.quoted(entity.attributes[$0].name) }).joined(separator: ", ")
        let scan = StoredRowScan(keyWidth: Int32(keyPositions.count), keyHasher: filter.keyHasher, rowHasher: filter.rowHasher)
        // A large table is scanned in two halves at once, the upper one by a `Helper`; should it
        // fail, the rest of its half (rows come in id order) is scanned here.
        let half = last - first + 1 >= Int64(parallelRows) ? first + (last - first + 1) / 2 : last + 1
        let upper = "SELECT \(selected) FROM \(table) WHERE \"id\" >= ?1 AND \"id\" <= \(last) ORDER BY \"id\""
        let helper = half <= last ? StoredRowScan.Helper(scan: scan, path: connection.path, sql: upper, from: half) : nil
        var resume = half
        func insertUpper(_ rows: inout [StoredRowDigest]) {
            if let row = rows.last { resume = row.id + 1 }
            filter.insert(&rows)
        }
        do {
            let lower = try connection.prepare("SELECT \(selected) FROM \(table) WHERE \"id\" < ?1")
            lower.bind(half, at: 1)
            try scan.run(lower) { rows in
                filter.insert(&rows)
                helper?.takeReady(insertUpper)
            }
        } catch {
            helper?.cancel()
            throw error
        }
        if let helper, !helper.drain(insertUpper) {
            let rest = try connection.prepare(upper)
            rest.bind(resume, at: 1)
            try scan.run(rest) { filter.insert(&$0) }
        }
        return filter
    }

    private init(rows: Int, firstID: Int64, columns: [Int], keyPositions: [Int], seen: SeenRecords) {
        slots = .allocate(capacity: max(rows + rows / 3, 16))
        slots.initialize(repeating: Slot())
        self.firstID = firstID
        var generator = SystemRandomNumberGenerator()
        keyHasher = ValueHasher(using: &generator)
        rowHasher = ValueHasher(using: &generator)
        self.keyPositions = keyPositions
        let keyIndices = Set(keyPositions)
        compared = columns.indices.filter { !keyIndices.contains($0) }
        self.seen = seen
    }

    deinit { slots.deallocate() }

    /// The slot holding `key`'s tag, or the empty slot where it would go.
    @inline(__always)
    private func probe(_ key: UInt64) -> (index: Int, found: Bool) {
        let tag = UInt32(truncatingIfNeeded: key >> 32)
        var index = home(key)
        while true {
            let slot = slots[index]
            if slot.reference == 0 { return (index, false) }
            if slot.tag == tag { return (index, true) }
            index = index + 1 == slots.count ? 0 : index + 1
        }
    }

    /// Keeps the reads of `insert(_:)` from being optimized away.
    private var touched: UInt32 = 0

    /// Inserts `entries` and empties them. Their slots are read first: independent loads the
    /// processor overlaps, where one insert after another would wait for each cache miss in turn.
    private func insert(_ entries: inout [StoredRowDigest]) {
        var touched: UInt32 = 0
        for entry in entries { touched &+= slots[home(entry.key)].reference }
        self.touched = touched
        for entry in entries { insert(key: entry.key, digest: entry.digest, id: entry.id) }
        entries.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(((key & 0xFFFF_FFFF) &* UInt64(slots.count)) >> 32) }

    private func insert(key: UInt64, digest: UInt64, id: Int64) {
        let (index, found) = probe(key)
        // Two rows whose keys share a tag: neither can be told apart, so both keys are kept.
        if found { return slots[index].reference |= Self.passed }
        slots[index] = Slot(tag: UInt32(truncatingIfNeeded: key >> 32), reference: UInt32(id - firstID + 1), digest: digest)
    }

    func dropping(_ batch: RecordBatch) -> RecordBatch {
        guard batch.keyPositions == keyPositions else { return batch }
        var kept: [Int] = []
        batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            for record in 0..<batch.count where !drop(batch, record, base) {
                kept.append(record)
            }
        }
        return kept.count == batch.count ? batch : batch.keeping(kept)
    }

    @inline(__always)
    private func drop(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        var key = keyHasher.start
        for position in batch.keyPositions { keyHasher.add(batch.value(record: record, position: position), base, &key) }
        let (index, found) = probe(keyHasher.finish(key))
        guard found, slots[index].reference & Self.passed == 0 else { return false }
        var digest = rowHasher.start
        for position in batch.keyPositions { rowHasher.add(batch.value(record: record, position: position), base, &digest) }
        for position in compared { rowHasher.add(batch.value(record: record, position: position), base, &digest) }
        if rowHasher.finish(digest) == slots[index].digest,
           seen.mark(firstID + Int64(slots[index].reference) - 1, origin: batch.feedRecord(record)) == .new {
            return true
        }
        slots[index].reference |= Self.passed
        return false
    }
}
