import CSQLite
import Foundation
import ImporterKeyOrder
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// An import into SQLite: per entity, the bitmap of stored records written (duplicates, sync,
/// unchanged counts: `SeenRecords`), the duplicate merger and one upserter per set of supplied
/// columns, fed by one `SQLiteFeedWriter` per feed; updates are captured by the preupdate hook,
/// inserts and deletes recorded set-based (see `HistoryWriter`).
final class SQLiteImportTransaction: ImportTransaction {
    private let store: SQLiteStore
    private let history: HistoryWriter
    private let transaction: OpenTransaction
    private var runs: [String: EntityRun] = [:]
    private var changeIDs: [String: ClosedRange<Int64>] = [:]
    /// Records re-keyed by key drift, per entity.
    private var rekeyed: [String: Int] = [:]
    private var rejectWriter: SQLiteRejectWriter?
    var rejectRun: Int64? { rejectWriter?.run }
    /// The repeated keys the upserters met since the feed writer last took them.
    private var duplicates = DuplicateLog()

    /// The state of one entity in the import.
    private final class EntityRun {
        /// The stored records written so far, shared by all the entity's feeds.
        let seen: SeenRecords
        let merger: DuplicateMerger
        /// One upserter per set of supplied columns (feeds of one entity may supply different ones).
        var upserters: [[Int]: BatchUpserter] = [:]

        init(entity: EntityDescription, store: SQLiteStore, transaction: OpenTransaction) throws {
            let connection = store.connection
            seen = store.seenRegistry.add(lastIDBefore: transaction.lastIDBefore[entity.name] ?? 0)
            merger = try DuplicateMerger(connection: connection, entity: entity, transaction: transaction)
        }
    }

    init(store: SQLiteStore, entities: [EntityDescription]) throws {
        self.store = store
        history = HistoryWriter(store: store)
        transaction = try history.begin(entities)
        for entity in entities {
            runs[entity.name] = try EntityRun(entity: entity, store: store, transaction: transaction)
        }
    }

    deinit {
        // Whether the import finished or failed, the guard functions stop using its number.
        store.transactionState.number = nil
        store.seenRegistry.removeAll()
    }

    var number: Int64 { transaction.number }

    func beginFeed(_ writing: FeedWriteOptions) throws -> any FeedWriter {
        _ = try run(writing.entity)
        return SQLiteFeedWriter(transaction: self, writing: writing)
    }

    /// Upserts are written as they come: nothing waits, and the repeats were logged by the feeds.
    func applyUpserts(_ entity: EntityDescription) throws -> DuplicateLog {
        DuplicateLog()
    }

    /// The repeated keys logged since the last call.
    func takeDuplicates() -> DuplicateLog {
        defer { duplicates = DuplicateLog() }
        return duplicates
    }

    private func run(_ entity: EntityDescription) throws -> EntityRun {
        guard let run = runs[entity.name] else { throw StoreError.invariant("entity \(entity.name) is not part of this import") }
        return run
    }

    func upsert(_ batch: RecordBatch, of entity: EntityDescription, columns: [Int]) throws {
        let run = try run(entity)
        let upserter = try run.upserters[columns] ?? BatchUpserter(
            connection: store.connection, capture: store.capture, entity: entity, columns: columns, keyPositions: batch.keyPositions,
            seen: run.seen, duplicates: run.merger) { [unowned self] duplicate in self.duplicates.append(duplicate) }
        run.upserters[columns] = upserter
        try upserter.write(batch)
    }

    /// A filter of the records the store holds unchanged, for a feed supplying `columns`.
    func unchangedFilter(for entity: EntityDescription, columns: [Int]) throws -> UnchangedFilter? {
        try UnchangedFilter.build(connection: store.connection, entity: entity, columns: columns, seen: try run(entity).seen)
    }

    /// A matcher noting, while sorted runs merge, the records the store held unchanged.
    func storedRowMatcher(for entity: EntityDescription, columns: [Int]) throws -> sending (any UnchangedRowMatcher)? {
        StoredRowMatcher.make(path: store.connection.path, entity: entity, columns: columns, lastIDBefore: try run(entity).seen.lastIDBefore)
    }

    func recordReject(_ reject: Reject, at timestamp: String) throws {
        let writer = try rejectWriter ?? SQLiteRejectWriter(store: store)
        rejectWriter = writer
        try writer.insert(reject, at: timestamp)
    }

    func reconcileDrift(_ entity: EntityDescription, within window: SyncWindow?) throws -> Int {
        guard let drift = entity.drift else { return 0 }
        let supplied = Set(try run(entity).upserters.keys.joined()).sorted()
        let count = try DriftReconciler(connection: store.connection, capture: store.capture, entity: entity, drift: drift, seen: try run(entity).seen,
                                        window: window).reconcile(supplied: supplied)
        rekeyed[entity.name, default: 0] += count
        return count
    }

    func deleteRecordsNotWritten(_ entity: EntityDescription, keeping: [[Value]], within window: SyncWindow?) throws -> Int {
        let condition = "\(try run(entity).seen.unseenCondition) AND \(KeyListSQL.none(of: keeping, columns: entity.uniqueKey))"
        return try history.deleteRecords(entity, where: condition + (window.map { " AND " + $0.condition } ?? ""), in: transaction)
    }

    func deleteRecords(_ entity: EntityDescription, keys: [[Value]]) throws -> Int {
        try history.deleteRecords(entity, where: KeyListSQL.any(of: keys, columns: entity.uniqueKey), in: transaction)
    }

    func recordCount(_ entity: EntityDescription, within window: SyncWindow) throws -> Int {
        Int(try store.connection.integer("SELECT count(*) FROM \(SQLiteEntitySchema.q(entity.tableName)) AS e WHERE \(window.condition)"))
    }

    func deleteChildrenNotWritten(_ child: EntityDescription, parent: EntityDescription, keeping: [[Value]]) throws -> Int {
        // A run that wrote every stored child (a snapshot whose lists kept their members) has
        // none to delete: a count of the ids, instead of testing each stored child's parent.
        let seen = try run(child).seen
        let stored = try store.connection.integer("SELECT count(*) FROM \(SQLiteEntitySchema.q(child.tableName)) WHERE \"id\" <= ?", [.integer(seen.lastIDBefore)])
        if stored == seen.storedCount { return 0 }
        let sql = ChildrenSQL(child: child, parent: parent)
        let condition = "\(try run(child).seen.unseenCondition) AND \(sql.parentExists(where: "importer_seen(\(try run(parent).seen.slot), p.\"id\") = 1"))"
        return try history.deleteRecords(child, where: condition + " AND " + sql.notChildOf(keeping), in: transaction)
    }

    func deleteOrphans(_ child: EntityDescription, parent: EntityDescription) throws -> Int {
        try history.deleteRecords(child, where: ChildrenSQL(child: child, parent: parent).orphaned, in: transaction)
    }

    func closeEntity(_ entity: EntityDescription) throws -> ChangeCounts {
        var (counts, ids) = try history.recordChanges(entity, in: transaction)
        changeIDs[entity.name] = ids
        let run = try run(entity)
        counts.unchanged = run.seen.storedCount - counts.updated
        counts.duplicates = run.seen.duplicates
        counts.rekeyed = rekeyed[entity.name] ?? 0
        return counts
    }

    func attributeChanges(_ entity: EntityDescription, examplesAbove: Int?) throws -> AttributeChanges {
        try AttributeChangesSQL(entity: entity, dialect: SQLiteDialect(), columns: store.changeColumns)
            .count(changeIDs: changeIDs[entity.name], examplesAbove: examplesAbove, on: SQLiteExecutor(store.connection))
    }

    func finish(metadata: TransactionMetadata, counts: [(String, ChangeCounts)]) throws -> Bool {
        let wrote = try history.finish(number, metadata: metadata, entities: counts.map { ($0.0, $0.1, changeIDs[$0.0]) })
        if let rejectRun, wrote { try store.tagRejects(run: rejectRun, transaction: number) }
        return wrote
    }
}

extension SQLiteStore {
    package func beginImport(_ entities: [EntityDescription]) throws -> any ImportTransaction {
        try SQLiteImportTransaction(store: self, entities: entities)
    }

    package func forEachRecord(of entity: EntityDescription, _ body: (Int64, [Value]) throws -> Void) throws {
        let columns = (["id"] + entity.attributes.map(\.name)).map(SQLIdentifier.quoted).joined(separator: ", ")
        let order = entity.uniqueKey.map(SQLIdentifier.quoted).joined(separator: ", ")
        try connection.prepare("SELECT \(columns) FROM \(SQLIdentifier.quoted(entity.tableName)) ORDER BY \(order)").forEachRow { row in
            try body(row.int64(at: 0), (1..<row.columnCount).map { row.value(at: $0) })
        }
    }
}
