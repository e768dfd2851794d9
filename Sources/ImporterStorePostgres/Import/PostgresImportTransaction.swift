import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL
import NIOCore

/// An import into PostgreSQL: per entity, batches are COPied into a temporary staging table (on a
/// first load, straight into the entity table while no key repeats: `copyDirect`); the staged rows
/// are applied set-based once, before the first sync step or at the entity's close
/// (`StagedUpsert`); sync deletes the stored records the feed did not write (`StagedUpsert.unseen`:
/// the diff's unmatched stored records, less key drift's re-keyed ones); inserts are recorded at
/// the close from the rows the run added (ids above the largest id before the run: one writer at a
/// time). Change rows have the layout and content of SQLite's. The transaction's sorts and hashes
/// get `workMem`.
final class PostgresImportTransaction: ImportTransaction {
    let store: PostgresStore
    let number: Int64
    private(set) var rejectRun: Int64?
    /// Rejects not stored yet (each with the time it was met): written `rejectBatch` at a time,
    /// since each statement waits for the COPYs queued before it (figures: Docs/PERFORMANCE.md, "Measurements behind the code")).
    private var pendingRejects: [(Reject, String)] = []
    static let rejectBatch = 500
    private var runs: [String: EntityRun] = [:]
    private var changeIDs: [String: ClosedRange<Int64>] = [:]

    /// One entity's state in the import.
    final class EntityRun {
        let index: Int
        let lastIDBefore: Int64
        let lastChangeIDBefore: Int64
        var upsert: StagedUpsert?
        /// Where the next batch goes: straight into the table, into the stage, nowhere once applied.
        var load = EntityLoadStateMachine()
        /// The records COPied straight into the entity table (`copyDirect`), not staged.
        var directRows = 0
        /// The entity table's unique keys, while dropped for the direct COPYs.
        var deferredKeys: DeferredKeys?
        /// Whether the first direct COPY tried to drop them (once per run).
        var triedDeferringKeys = false
        /// Whether the entity table's supplied columns still have the types the importer created
        /// them with, so that direct COPYs may be binary (found at the first one).
        var directBinary = false
        /// Each set of attributes the feeds supplied and its staging table (more than one:
        /// `StagedMerge` merges them before the apply).
        var parts: [(columns: [Int], stage: String)] = []
        /// Whether the staged keys are distinct (`StagedKeys`).
        var keys: StagedKeys?
        var staged = 0
        var batches = 0
        var duplicates = 0
        /// Of `duplicates`, the ones rejected (`DuplicateKeys.reject`).
        var rejectedDuplicates = 0
        /// The repeated keys the apply found, until `applyUpserts` hands them on.
        var duplicateLog = DuplicateLog()
        /// Each feed's `duplicates` choice, by the feed's index in the run.
        var feeds: [Int: DuplicateKeys] = [:]
        /// Where each record COPied straight into the table came from, for naming a key's first
        /// occurrence.
        let directOrigins = DirectOrigins()
        /// The stored records a staged key matched (updated or unchanged).
        var stored = 0
        var rekeyed = 0
        /// The re-keying done, whose update changes are recorded at the close.
        var rekey: DriftRekey?

        init(index: Int, lastIDBefore: Int64, lastChangeIDBefore: Int64) {
            self.index = index
            self.lastIDBefore = lastIDBefore
            self.lastChangeIDBefore = lastChangeIDBefore
        }
    }

    /// For the set-based statements' sorts (a million staged rows) and hashes, for this
    /// transaction only: server memory, not importer's. The diff's join gets more
    /// (`StagedUpsert.diffWorkMem`).
    static let workMem = "256MB"

    init(store: PostgresStore, entities: [EntityDescription]) throws {
        self.store = store
        number = try store.lastTransactionNumber() + 1
        try store.connection.execute("SET LOCAL work_mem = '\(Self.workMem)'")
        for (index, entity) in entities.enumerated() {
            let schema = PostgresEntitySchema(entity: entity)
            runs[entity.name] = EntityRun(
                index: index,
                lastIDBefore: try store.connection.integer("SELECT coalesce(max(\"id\"), 0) FROM \(schema.table)"),
                lastChangeIDBefore: try store.connection.integer("SELECT coalesce(max(\(schema.changeID)), 0) FROM \(schema.changeTable)"))
        }
    }

    private func run(_ entity: EntityDescription) throws -> EntityRun {
        guard let run = runs[entity.name] else { throw StoreError.invariant("entity \(entity.name) is not part of this import") }
        return run
    }

    func upsert(_ batch: RecordBatch, of entity: EntityDescription, columns: [Int]) throws {
        let run = try run(entity)
        var action = run.load.batch(batch, sameColumns: columns == run.upsert?.columns)
        if action == .begin {
            try begin(run, of: entity, columns: columns, keyPositions: batch.keyPositions)
            action = run.load.batch(batch, sameColumns: true)
        }
        guard let first = run.upsert, action != .refuse, action != .begin else {
            throw StoreError.invariant("records of entity \(entity.name) came after its sync or its close")
        }
        run.batches += 1
        run.feeds[batch.feed] = batch.duplicates
        if action == .copyDirect { return try copyDirect(batch, of: first, run) }
        let upsert = try part(supplying: columns, of: first, in: run)
        // On a first load, each batch is staged in key order (SQLite's, which is COLLATE "C"'s), so
        // that the stage is already in the insert order (batch, key): PostgreSQL's sort then finds
        // it sorted. `importer_ord` stays the feed order, whatever the row order.
        let order = upsert.firstLoad ? Self.keyOrder(batch) : Array(0..<batch.count)
        run.keys?.append(batch, records: order)
        let (staged, number) = (Int64(run.staged + 1), Int64(run.batches))
        let rows = try Self.copyRows(batch, order, of: entity, columns: columns, leading: 4) { record, write in
            write(staged + Int64(record))
            write(number)
            let origin = batch.feedRecord(record)
            write(origin.packed)
            write(origin.packedPosition)
        }
        run.staged += batch.count
        try store.connection.copy(into: upsert.stage, columns: upsert.stageColumns, binary: rows.binary, data: rows.data)
    }

    /// `batch`'s records in `order` as COPY rows, each led by `leading` bigints (`lead(record,
    /// write)` writes them): in the binary format when every value is of its column's type
    /// (`CopyBinary`), else as text. Throws when a record holds text PostgreSQL cannot store.
    static func copyRows(_ batch: RecordBatch, _ order: [Int], of entity: EntityDescription, columns: [Int], leading: Int = 0, binary allowed: Bool = true,
                         lead: (Int, (Int64) -> Void) -> Void = { _, _ in }) throws -> (data: ByteBuffer, binary: Bool) {
        let types = columns.map { CopyBinary.Column(entity.attributes[$0].type) }
        guard allowed else { return try textRows(batch, order, of: entity, columns: columns, types: types, leading: leading, lead: lead) }
        var binary = CopyBinary(capacity: 12 * batch.count * (batch.width + leading) + batch.arena.count)
        let encoded = try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            for record in order {
                binary.beginRow(fields: leading + batch.width)
                lead(record) { binary.append($0) }
                guard binary.appendRecord(record, of: batch, columns: types, arena: base) else { return false }
                try checkStorable(sawNUL: binary.sawNUL, batch, record: record, of: entity, columns: columns)
            }
            return true
        }
        if encoded { return (binary.buffer, true) }
        return try textRows(batch, order, of: entity, columns: columns, types: types, leading: leading, lead: lead)
    }

    /// `copyRows` in COPY's text format (`types`: the columns' storage).
    private static func textRows(_ batch: RecordBatch, _ order: [Int], of entity: EntityDescription, columns: [Int], types: [CopyBinary.Column],
                                 leading: Int, lead: (Int, (Int64) -> Void) -> Void) throws -> (data: ByteBuffer, binary: Bool) {
        var text = CopyText(capacity: 8 * batch.count * (batch.width + leading))
        let doubles = types.map { $0 == .double }
        for record in order {
            lead(record) { text.append(.integer($0)) }
            text.appendRecord(record, of: batch, doubles: doubles)
            try checkStorable(sawNUL: text.sawNUL, batch, record: record, of: entity, columns: columns)
        }
        return (text.buffer, false)
    }

    /// The entity's stage and bookkeeping, at its first batch.
    private func begin(_ run: EntityRun, of entity: EntityDescription, columns: [Int], keyPositions: [Int]) throws {
        let upsert = StagedUpsert(entity: entity, columns: columns, stage: "importer_stage_\(run.index)",
                                  diff: "importer_diff_\(run.index)", seen: "importer_seen_\(run.index)",
                                  firstLoad: run.lastIDBefore == 0)
        try store.connection.execute(upsert.createStage)
        try store.connection.execute(upsert.createSeen)
        run.upsert = upsert
        run.parts = [(columns, upsert.stage)]
        run.keys = StagedKeys(entity: entity, columns: columns, keyPositions: keyPositions)
        run.load.begun(firstLoad: upsert.firstLoad, keys: DirectKeys(entity: entity, columns: columns, keyPositions: keyPositions))
    }

    /// Throws when the record just encoded held text PostgreSQL cannot store (`sawNUL`: the
    /// encoder's, `CopyText` or `CopyBinary`), naming the record and the attribute.
    static func checkStorable(sawNUL: Bool, _ batch: RecordBatch, record: Int, of entity: EntityDescription, columns: [Int]) throws {
        guard sawNUL else { return }
        let origin = batch.origins[record]
        let position = (0..<batch.width).first { position in
            guard case .text(let value) = batch.publicValue(record: record, position: position) else { return false }
            return value.utf8.contains(0)
        }
        let location = SourceLocation(source: "", line: Int(origin.line), column: Int(origin.column), recordIndex: origin.recordIndex,
                                      path: position.map { entity.attributes[columns[$0]].name })
        throw StoreError.unstorable(at: location, reason: "PostgreSQL text cannot hold the NUL character (U+0000), which an SQLite store keeps")
    }

    /// The batch's records in key order (SQLite's, which is COLLATE "C"'s).
    static func keyOrder(_ batch: RecordBatch) -> [Int] {
        (0..<batch.count).sorted { batch.compareKeys($0, $1) < 0 }
    }

    /// The stage of the part of the feeds that supplies `columns`, created when first met.
    private func part(supplying columns: [Int], of first: StagedUpsert, in run: EntityRun) throws -> StagedUpsert {
        let stage = run.parts.first { $0.columns == columns }?.stage ?? "importer_stage_\(run.index)_\(run.parts.count)"
        let part = StagedUpsert(entity: first.entity, columns: columns, stage: stage, diff: first.diff, seen: first.seen, firstLoad: first.firstLoad)
        if !run.parts.contains(where: { $0.columns == columns }) {
            try store.connection.execute(part.createStage)
            run.parts.append((columns, stage))
            // StagedKeys reads the first part's key positions; the merge makes keys distinct anyway.
            run.keys = nil
        }
        return part
    }

    /// The stage the apply reads: the one part's, or the parts merged (`StagedMerge`).
    private func mergedStage(_ upsert: StagedUpsert, _ run: EntityRun) throws -> StagedUpsert {
        guard run.parts.count > 1 else { return upsert }
        let merge = StagedMerge(entity: upsert.entity, parts: run.parts, merged: "importer_merged_\(run.index)", chosenFirst: upsert.chosenFirst("a."))
        try store.connection.execute(merge.createMerged)
        var merged = StagedUpsert(entity: upsert.entity, columns: merge.union, stage: merge.merged, diff: upsert.diff,
                                  seen: upsert.seen, firstLoad: upsert.firstLoad)
        merged.firstFeeds = upsert.firstFeeds
        merged.severalFeeds = upsert.severalFeeds
        run.upsert = merged
        return merged
    }

    /// Applies the staged rows once (idempotent): updates recorded and written, inserts written.
    /// On a first load: nothing left when every batch went straight into the table; one ordered
    /// insert when none did; else the staged rows applied to the run's own inserts like a re-load,
    /// without update changes (each of these records is recorded once, as an insert, at the close).
    func applyUpserts(_ entity: EntityDescription) throws -> DuplicateLog {
        try apply(entity)
        let run = try run(entity)
        defer { run.duplicateLog = DuplicateLog() }
        return run.duplicateLog
    }

    func beginFeed(_ writing: FeedWriteOptions) throws -> any FeedWriter {
        // The direct records' origins (`DirectOrigins`) are kept there.
        try run(writing.entity).directOrigins.directory = writing.temporaryDirectory
        return PostgresFeedWriter(transaction: self, entity: writing.entity)
    }

    private func apply(_ entity: EntityDescription) throws {
        let run = try run(entity)
        let action = run.load.apply()
        guard action != .none else { return }
        try restoreKeys(run)
        guard action == .merge, var staged = run.upsert else { return }
        staged.firstFeeds = run.feeds.filter { $0.value != .last }.keys.sorted()
        staged.severalFeeds = run.feeds.count > 1
        run.upsert = staged
        let upsert = try mergedStage(staged, run)
        let distinctKeys = run.parts.count > 1 || (run.keys?.distinct() ?? false)
        if upsert.firstLoad {
            guard run.staged > 0 else { return }
            guard run.directRows > 0 else {
                run.duplicates = run.staged - (try insertFirstLoad(upsert, distinctKeys: distinctKeys))
                return try reportDuplicates(upsert, run)
            }
        }
        try applyDiff(upsert, run, distinctKeys: distinctKeys)
        try reportDuplicates(upsert, run)
    }

    /// The staged rows joined to the stored ones (`StagedUpsert.createDiff`) and applied.
    private func applyDiff(_ upsert: StagedUpsert, _ run: EntityRun, distinctKeys: Bool) throws {
        let connection = store.connection
        // Each staged row its own key (one part, `StagedKeys`): the stored records matched are the
        // staged rows less the new keys, and the table need not be counted.
        let eachRowItsKey = distinctKeys && run.parts.count == 1
        let countsStored = !upsert.firstLoad && !eachRowItsKey
        let storedBefore = countsStored ? Int(try connection.integer("SELECT count(*) FROM \(upsert.schema.table)")) : 0
        for statement in StagedUpsert.joinBySets { try connection.execute(statement) }
        try connection.execute(upsert.createDiff(distinctKeys: distinctKeys))
        for statement in StagedUpsert.resetJoins { try connection.execute(statement) }
        if upsert.firstLoad { try keepDirectFirsts(upsert, run) }
        // Each stored record either matched one staged key (deduplicated) or none. On a first
        // load the matched records are this run's, and a match is a duplicate.
        if countsStored { run.stored = storedBefore - Int(try connection.integer(upsert.unmatchedCount)) }
        for statement in StagedUpsert.joinByKey { try connection.execute(statement) }
        if !upsert.firstLoad { try connection.affected(upsert.recordUpdates, [.integer(number)]) }
        try connection.affected(upsert.applyUpdates)
        for statement in StagedUpsert.resetJoins { try connection.execute(statement) }
        let inserted = try connection.affected(upsert.applyInserts)
        if !upsert.firstLoad && eachRowItsKey { run.stored = run.staged - inserted }
        run.duplicates = run.staged - run.stored - inserted
    }

    func recordReject(_ reject: Reject, at timestamp: String) throws {
        if rejectRun == nil { rejectRun = try store.allocateRejectRun() }
        pendingRejects.append((reject, timestamp))
        if pendingRejects.count >= Self.rejectBatch { try storeRejects() }
    }

    private func storeRejects() throws {
        guard let rejectRun else { return }
        try PostgresRejects(store: store).insert(pendingRejects, run: rejectRun)
        pendingRejects.removeAll()
    }

    func reconcileDrift(_ entity: EntityDescription, within window: SyncWindow?) throws -> Int {
        guard let drift = entity.drift else { return 0 }
        try apply(entity)
        let run = try run(entity)
        guard run.lastIDBefore > 0, let upsert = run.upsert else { return 0 }
        let rekey = DriftRekey(entity: entity, drift: drift, upsert: upsert)
        let connection = store.connection
        let inserted = KeyDriftPairing.candidates(try connection.rows(rekey.candidates(inserted: true), [.integer(run.lastIDBefore)]))
        guard !inserted.isEmpty else { return 0 }
        let gone = KeyDriftPairing.candidates(try connection.rows(rekey.candidates(inserted: false) + (window.map { " AND " + $0.condition } ?? ""),
                                                                  [.integer(run.lastIDBefore)]))
        let pairs = KeyDriftPairing.pairs(gone, inserted, tolerance: drift.tolerance)
        guard !pairs.isEmpty else { return 0 }
        try connection.execute(rekey.createPairs)
        try connection.execute("TRUNCATE \(DriftRekey.pairs)")
        var text = CopyText()
        for (index, pair) in pairs.enumerated() { text.appendRow([.integer(pair.0.id), .integer(pair.1.id), .integer(Int64(index))]) }
        try connection.copy(into: DriftRekey.pairs, columns: ["stored", "new", "ord"], data: text.buffer)
        for statement in rekey.statements { try connection.execute(statement) }
        run.rekeyed += pairs.count
        run.rekey = rekey
        return pairs.count
    }

    func deleteRecordsNotWritten(_ entity: EntityDescription, keeping: [[Value]], within window: SyncWindow?) throws -> Int {
        try apply(entity)
        let condition = "\(unwritten(try run(entity))) AND \(KeyListSQL.none(of: keeping, columns: entity.uniqueKey))"
        return try deleteRecords(entity, where: condition + (window.map { " AND " + $0.condition } ?? ""))
    }

    func deleteRecords(_ entity: EntityDescription, keys: [[Value]]) throws -> Int {
        try apply(entity)
        return try deleteRecords(entity, where: KeyListSQL.any(of: keys, columns: entity.uniqueKey))
    }

    func recordCount(_ entity: EntityDescription, within window: SyncWindow) throws -> Int {
        try apply(entity)
        return Int(try store.connection.integer("SELECT count(*) FROM \(PostgresEntitySchema(entity: entity).table) AS e WHERE \(window.condition)"))
    }

    func deleteChildrenNotWritten(_ child: EntityDescription, parent: EntityDescription, keeping: [[Value]]) throws -> Int {
        try apply(child)
        try apply(parent)
        let parentRun = try run(parent)
        let written = "(p.\"id\" > \(parentRun.lastIDBefore)" + (parentRun.upsert.map { " OR NOT (\($0.unseen("p")))" } ?? "") + ")"
        let sql = ChildrenSQL(child: child, parent: parent)
        return try deleteRecords(child, where: "\(unwritten(try run(child))) AND \(sql.parentExists(where: written)) AND \(sql.notChildOf(keeping))")
    }

    func deleteOrphans(_ child: EntityDescription, parent: EntityDescription) throws -> Int {
        try apply(child)
        return try deleteRecords(child, where: ChildrenSQL(child: child, parent: parent).orphaned)
    }

    /// The stored records (alias `e`) the run did not write.
    private func unwritten(_ run: EntityRun) -> String {
        "e.\"id\" <= \(run.lastIDBefore) AND " + (run.upsert.map { $0.unseen("e") } ?? "TRUE")
    }

    /// Deletes `entity`'s records that meet `condition` (alias `e`), each recorded as a delete.
    private func deleteRecords(_ entity: EntityDescription, where condition: String) throws -> Int {
        let run = try run(entity)
        let schema = PostgresEntitySchema(entity: entity)
        let recorded = try store.connection.affected(schema.recordDeletes(where: condition), [.integer(number)])
        let deleted = try store.connection.affected(schema.deleteRecorded, [.integer(run.lastChangeIDBefore)])
        guard deleted == recorded else {
            throw StoreError.invariant("recorded \(recorded) deletes but deleted \(deleted)")
        }
        return deleted
    }

    func closeEntity(_ entity: EntityDescription) throws -> ChangeCounts {
        try apply(entity)
        let run = try run(entity)
        let schema = PostgresEntitySchema(entity: entity)
        if let rekey = run.rekey { try store.connection.affected(rekey.recordChanges, [.integer(number)]) }
        var counts = try store.changeCounts(of: entity, after: run.lastChangeIDBefore).counts
        counts.inserted = try recordInserts(of: schema, run)
        let rekeyedStored = try run.upsert.map { try store.connection.integer("SELECT count(*) FROM \($0.seen)") } ?? 0
        counts.unchanged = run.stored + Int(rekeyedStored) - counts.updated
        counts.duplicates = run.duplicates - run.rejectedDuplicates
        counts.rekeyed = run.rekeyed
        let last = try store.connection.integer("SELECT coalesce(max(\(schema.changeID)), 0) FROM \(schema.changeTable)")
        if last > run.lastChangeIDBefore { changeIDs[entity.name] = (run.lastChangeIDBefore + 1)...last }
        return counts
    }

    func attributeChanges(_ entity: EntityDescription, examplesAbove: Int?) throws -> AttributeChanges {
        try AttributeChangesSQL(entity: entity, dialect: PostgresDialect(), columns: store.changeColumns)
            .count(changeIDs: changeIDs[entity.name], examplesAbove: examplesAbove, on: PostgresExecutor(connection: store.connection))
    }

    func finish(metadata: TransactionMetadata, counts: [(String, ChangeCounts)]) throws -> Bool {
        try storeRejects()
        let wrote = try store.recordTransaction(number, metadata: metadata, entities: counts.map { ($0.0, $0.1, changeIDs[$0.0]) })
        if let rejectRun, wrote { try store.tagRejects(run: rejectRun, transaction: number) }
        return wrote
    }
}
