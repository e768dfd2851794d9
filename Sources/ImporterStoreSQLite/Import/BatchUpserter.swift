import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// Writes batches of one entity's records, skipping the ones the store already holds unchanged.
///
/// - Each batch is sorted by key (B-tree work in key order measured faster, see Docs/DECISIONS.md, "Batch order"); among
///   equal keys in a batch the last occurrence wins, or the first (`RecordBatch.duplicates`).
/// - `StoredRows` reads the batch's stored rows (one index range) and sorts the records into new,
///   changed, unchanged and repeated: unchanged records write nothing, so a reload where few
///   records changed costs a read of the stored rows, not an upsert per record. Records an
///   `UnchangedRowMatcher` noted unchanged (a large store's shuffled reload) skip that read too,
///   when the run has not written their rows (`skipNotedUnchanged`).
/// - Changed records are updated by id (`UPDATE … WHERE id = ? AND <something changed>`), new ones
///   go through one prepared `INSERT … ON CONFLICT(key) DO UPDATE SET … WHERE <something changed>`:
///   only the batch's columns (the attributes the feed supplies) are written, and the `WHERE`
///   compares NULL-safely (`IS NOT`), so SQLite stays the judge of what changed. Record ids are
///   consumed by inserts only. `ChangeCapture` records an update right after its step.
/// - Every stored record written in the run is marked in the entity's `SeenRecords` (shared by
///   the upserters of all its feeds) with where its key was first met; a key already written in
///   the run by the same feed is dropped or goes through the entity's `DuplicateMerger`, by the
///   feed's `duplicates` choice; by another feed, it is merged. Each repeat is reported.
final class BatchUpserter {
    private let connection: SQLiteConnection
    private let capture: ChangeCapture
    private let upsert: SQLiteStatement
    /// Updates a stored record by id; nil when the feed supplies only key attributes.
    private let update: SQLiteStatement?
    /// Positions in the batch of the attributes `update` sets, in parameter order.
    private let updatable: [Int]
    private let stored: StoredRows
    private let seen: SeenRecords
    private let duplicates: DuplicateMerger
    /// Receives each repeated record (logged for the feed writer, `SQLiteFeedWriter`).
    private let report: (DuplicateRecord) throws -> Void
    private let entity: String
    private var order: [Int] = []
    private var kept: [Int] = []
    private var groups: [Range<Int>] = []
    private var actions: [Action] = []
    private var ids: [Int64] = []
    /// Per kept record whose key the run wrote before: where it was first met.
    private var earlier: [FeedRecord?] = []
    /// Positions in `kept` of the records whose stored rows `stored` reads, and those records.
    private var unmatched: [Int] = []
    private var unmatchedRecords: [Int] = []

    /// What a record of the batch needs, once its stored row is known.
    private enum Action {
        case insert, update, unchanged, duplicate
    }

    init(connection: SQLiteConnection, capture: ChangeCapture, entity: EntityDescription, columns: [Int], keyPositions: [Int],
         seen: SeenRecords, duplicates: DuplicateMerger, report: @escaping (DuplicateRecord) throws -> Void) throws {
        self.connection = connection
        self.report = report
        self.entity = entity.name
        self.capture = capture
        self.seen = seen
        self.duplicates = duplicates
        stored = try StoredRows(connection: connection, entity: entity, columns: columns, keyPositions: keyPositions)
        let names = columns.map { SQLIdentifier.quoted(entity.attributes[$0].name) }
        let table = SQLIdentifier.quoted(entity.tableName)
        let key = entity.uniqueKey.map(SQLIdentifier.quoted)
        let updatable = names.filter { !key.contains($0) }
        self.updatable = names.indices.filter { !key.contains(names[$0]) }
        if updatable.isEmpty {
            update = nil
        } else {
            let set = updatable.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: ", ")
            let changed = updatable.enumerated().map { "\($0.element) IS NOT ?\($0.offset + 1)" }.joined(separator: " OR ")
            update = try connection.prepare("UPDATE \(table) SET \(set) WHERE \"id\" = ?\(updatable.count + 1) AND (\(changed))")
        }
        var sql = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(names.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
        sql += " ON CONFLICT (\(key.joined(separator: ", "))) DO "
        if updatable.isEmpty {
            sql += "NOTHING"
        } else {
            sql += "UPDATE SET " + updatable.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            sql += " WHERE " + updatable.map { "\(table).\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        }
        upsert = try connection.prepare(sql)
    }

    func write(_ batch: RecordBatch) throws {
        groupByKey(batch)
        try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            actions.removeAll(keepingCapacity: true)
            actions.append(contentsOf: repeatElement(.insert, count: kept.count))
            ids.removeAll(keepingCapacity: true)
            ids.append(contentsOf: repeatElement(0, count: kept.count))
            earlier.removeAll(keepingCapacity: true)
            earlier.append(contentsOf: repeatElement(nil, count: kept.count))
            let skipped = skipNotedUnchanged(batch)
            try stored.match(batch, skipped ? unmatchedRecords : kept, base) { position, id, same in
                let index = skipped ? unmatched[position] : position
                ids[index] = id
                switch seen.mark(id, origin: batch.feedRecord(order[groups[index].lowerBound])) {
                case .new: actions[index] = same ? .unchanged : .update
                case .again(let first):
                    actions[index] = .duplicate
                    earlier[index] = first
                }
            }
            for (index, record) in kept.enumerated() {
                switch actions[index] {
                case .unchanged: continue
                case .update: try update(batch, record, id: ids[index], base)
                case .insert: try insert(batch, record, firstOccurrence: batch.feedRecord(order[groups[index].lowerBound]), base)
                case .duplicate: try writeAgain(batch, index, base)
                }
            }
        }
        try reportDuplicates(batch)
    }

    /// Marks written the kept records that an `UnchangedRowMatcher` noted unchanged
    /// (`RecordBatch.storedUnchanged`) and whose rows the run has not written since (so they are
    /// as noted): they need no write and no stored row read. The others' positions in `kept` go
    /// to `unmatched`, and their records to `unmatchedRecords`, for `stored` to read. False, and
    /// nothing done, for a batch without notes (every kept record is read).
    private func skipNotedUnchanged(_ batch: RecordBatch) -> Bool {
        guard let noted = batch.storedUnchanged else { return false }
        unmatched.removeAll(keepingCapacity: true)
        unmatchedRecords.removeAll(keepingCapacity: true)
        for (index, record) in kept.enumerated() {
            let id = noted[record]
            if id > 0, seen.mark(id, origin: batch.feedRecord(order[groups[index].lowerBound])) == .new {
                ids[index] = id
                actions[index] = .unchanged
            } else {
                unmatched.append(index)
                unmatchedRecords.append(record)
            }
        }
        return true
    }

    /// Writes group `index`, whose key an earlier batch of the run wrote (`earlier[index]`): by the
    /// same feed, as the batch's `duplicates` choice says; by another feed, merged over it (the
    /// batch's first occurrence becomes the key's first, for this feed's later repeats).
    private func writeAgain(_ batch: RecordBatch, _ index: Int, _ base: UnsafePointer<UInt8>) throws {
        let record = kept[index]
        let first = earlier[index]
        if DuplicateRecord.resolution(first: first, laterFeed: batch.feed, keys: batch.duplicates) == .merged {
            seen.set(ids[index], origin: batch.feedRecord(order[groups[index].lowerBound]))
        } else if batch.duplicates != .last {
            return
        }
        // Merged into one change; updated by id, since SQLite's upsert would spend an id on the
        // conflict (AUTOINCREMENT), and the next insert would not get the id PostgreSQL gives it.
        try duplicates.rewrite(keyValues: batch.keyValues(record)) { try update(batch, record, id: ids[index], base) }
    }

    /// Reports every repeated record of the batch, in feed order: the members of each group after
    /// the first, and the first too when an earlier batch had the key.
    private func reportDuplicates(_ batch: RecordBatch) throws {
        guard kept.count < batch.count || actions.contains(.duplicate) else { return }
        var found: [DuplicateRecord] = []
        for (index, group) in groups.enumerated() where group.count > 1 || actions[index] == .duplicate {
            found += DuplicateRecord.chain(entity: entity, key: batch.keyValues(kept[index]),
                                           earlier: actions[index] == .duplicate ? earlier[index] ?? FeedRecord(feed: batch.feed, recordIndex: -1) : nil,
                                           occurrences: order[group].map(batch.feedRecord)) { _ in batch.duplicates }
        }
        found.sort { $0.later.recordIndex < $1.later.recordIndex }
        for duplicate in found {
            if duplicate.resolution != .rejected { seen.duplicates += 1 }
            try report(duplicate)
        }
    }

    /// Sorts the batch's records by key and groups equal keys (`groups`, ranges of `order` in feed
    /// order); `kept` holds each group's record to write: its last, or its first when the batch's
    /// `duplicates` choice is first or reject. A batch in strict key order, noted
    /// (`strictKeyOrder`) or found, is not sorted: reversed when descending (the API's
    /// newest-first order), taken as it is when ascending (a merged shuffled feed), each record
    /// its own group.
    private func groupByKey(_ batch: RecordBatch) {
        let count = batch.count
        order.removeAll(keepingCapacity: true)
        kept.removeAll(keepingCapacity: true)
        groups.removeAll(keepingCapacity: true)
        if let strict = batch.strictKeyOrder ?? batch.findStrictKeyOrder() {
            if strict == .ascending { order.append(contentsOf: 0..<count) } else { order.append(contentsOf: (0..<count).reversed()) }
            kept.append(contentsOf: order)
            groups.append(contentsOf: (0..<count).lazy.map { $0..<($0 + 1) })
            return
        }
        order.append(contentsOf: 0..<count)
        order.sort { a, b in
            let c = batch.compareKeys(a, b)
            return c != 0 ? c < 0 : a < b
        }
        var start = 0
        for i in 0..<count where i + 1 == count || batch.compareKeys(order[i], order[i + 1]) != 0 {
            kept.append(order[batch.duplicates == .last ? i : start])
            groups.append(start..<(i + 1))
            start = i + 1
        }
    }

    /// Writes a record whose key was not found. Should the key be stored after all (a key the merge
    /// ordered differently from the index), the upsert updates that record, and it is marked
    /// written here so that sync mode cannot delete it.
    private func insert(_ batch: RecordBatch, _ record: Int, firstOccurrence: FeedRecord, _ base: UnsafePointer<UInt8>) throws {
        let before = sqlite3_last_insert_rowid(connection.handle)
        try writeRecord(batch, record, base) {
            let after = sqlite3_last_insert_rowid(connection.handle)
            guard after == before else { return seen.set(after, origin: firstOccurrence) }
            if let (id, _) = try stored.look(up: batch, record, base) { _ = seen.mark(id, origin: firstOccurrence) }
        }
    }

    /// Writes the supplied attributes of stored record `id` (nothing when the feed supplies only
    /// key attributes).
    private func update(_ batch: RecordBatch, _ record: Int, id: Int64, _ base: UnsafePointer<UInt8>) throws {
        guard let update else { return }
        update.bind(batch, record, positions: updatable, base, firstParameter: 1)
        update.bind(id, at: Int32(updatable.count + 1))
        try step(update, batch, record)
        if capture.hasPending { try capture.flush() }
    }

    @inline(__always)
    private func writeRecord(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>, afterStep: () throws -> Void = {}) throws {
        upsert.bind(batch, record, positions: nil, base, firstParameter: 1)
        try step(upsert, batch, record)
        try afterStep()
        if capture.hasPending { try capture.flush() }
    }

    /// Runs `statement`, which writes `record` of `batch`, and resets it. The model's constraints
    /// cannot refuse it (its key conflicts are the upsert's to resolve, its required attributes
    /// the mapper's to reject), so a constraint failing is one added to the store by hand: the
    /// record's fault, located.
    @inline(__always)
    private func step(_ statement: SQLiteStatement, _ batch: RecordBatch, _ record: Int) throws {
        defer { statement.reset() }
        do {
            _ = try statement.step()
        } catch where error.code == SQLITE_CONSTRAINT {
            let origin = batch.origins[record]
            let location = SourceLocation(source: "", line: Int(origin.line), column: Int(origin.column), recordIndex: origin.recordIndex)
            throw StoreError.refused(at: location, what: "this record", reason: error.message)
        }
    }
}

extension SQLiteStatement {
    /// Binds the record's values at `positions` (all columns when nil) as consecutive parameters.
    @inline(__always)
    func bind(_ batch: RecordBatch, _ record: Int, positions: [Int]?, _ base: UnsafePointer<UInt8>, firstParameter: Int32) {
        let width = positions?.count ?? batch.width
        for parameter in 0..<width {
            let position = positions?[parameter] ?? parameter
            let index = firstParameter + Int32(parameter)
            switch batch.value(record: record, position: position) {
            case .null: bindNull(index)
            case .integer(let v): bind(v, at: index)
            case .real(let v): bind(v, at: index)
            case .text(let start, let count): bindText(base + Int(start), count: Int(count), at: index)
            }
        }
    }
}
