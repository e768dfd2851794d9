import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// A history transaction being written: its number, and for each entity the last record id and
/// change id assigned before it began (records above the first are the ones it inserts; its change
/// rows are the ones above the second).
struct OpenTransaction {
    let number: Int64
    let lastIDBefore: [String: Int64]
    let lastChangeIDBefore: [String: Int64]
}

/// Opens and closes history transactions around writes to entity tables.
///
/// Allocates the transaction number the guards require, tracks the entities' updates (through
/// `ChangeCapture`), records deletes and the run's inserts set-based (see `SQLiteEntitySchema`), and
/// writes the transaction row with its counts and change-id ranges, or nothing when no record
/// changed.
struct HistoryWriter {
    let store: SQLiteStore

    /// Allocates the next transaction number and makes the triggers use it. Call inside the write
    /// transaction, after taking the write lock.
    func begin(_ entities: [EntityDescription]) throws -> OpenTransaction {
        let number = try store.lastTransactionNumber() + 1
        store.capture.reset()
        var lastIDs: [String: Int64] = [:]
        var lastChangeIDs: [String: Int64] = [:]
        for entity in entities {
            let schema = SQLiteEntitySchema(entity: entity)
            lastIDs[entity.name] = try SQLiteEntitySchema.lastAssignedID(entity.tableName, in: store.connection)
            lastChangeIDs[entity.name] = try SQLiteEntitySchema.lastAssignedID(schema.changeTableName, in: store.connection)
            try store.capture.track(entity)
        }
        store.transactionState.number = number
        return OpenTransaction(number: number, lastIDBefore: lastIDs, lastChangeIDBefore: lastChangeIDs)
    }

    /// Deletes the records matching `condition` (SQL over the entity table), recording each as a
    /// delete change with its values first; returns how many.
    func deleteRecords(_ entity: EntityDescription, where condition: String, in transaction: OpenTransaction) throws -> Int {
        let schema = SQLiteEntitySchema(entity: entity)
        let lastChange = try SQLiteEntitySchema.lastAssignedID(schema.changeTableName, in: store.connection)
        try store.connection.execute(schema.recordDeletes(where: condition), [.integer(transaction.number)])
        let recorded = store.connection.changes
        store.capture.expectingDeletes = true
        defer { store.capture.expectingDeletes = false }
        try store.connection.execute(schema.deleteRecorded, [.integer(lastChange)])
        guard store.connection.changes == recorded else {
            throw StoreError.invariant("recorded \(recorded) deletes but deleted \(store.connection.changes)")
        }
        return recorded
    }

    /// The counts of `entity`'s changes in the open transaction: updates and deletes from the rows
    /// written so far, then inserts as one insert row per record the entity gained, written with
    /// its final values.
    func recordChanges(_ entity: EntityDescription, in transaction: OpenTransaction) throws -> (counts: ChangeCounts, changeIDs: ClosedRange<Int64>?) {
        try store.capture.flush()
        guard store.capture.untrackedDeletes == 0 else {
            throw StoreError.invariant("\(store.capture.untrackedDeletes) record(s) were deleted without a delete change")
        }
        let schema = SQLiteEntitySchema(entity: entity)
        let lastChangeBefore = transaction.lastChangeIDBefore[entity.name] ?? 0
        try store.connection.execute(schema.clearInsertedUpdates, [.integer(lastChangeBefore), .integer(transaction.lastIDBefore[entity.name] ?? 0)])
        var counts = try store.changeCounts(of: entity, after: lastChangeBefore).counts
        try store.connection.execute(schema.recordInserts, [.integer(transaction.number), .integer(transaction.lastIDBefore[entity.name] ?? 0)])
        counts.inserted = store.connection.changes
        let lastChange = try SQLiteEntitySchema.lastAssignedID(schema.changeTableName, in: store.connection)
        return (counts, lastChange > lastChangeBefore ? (lastChangeBefore + 1)...lastChange : nil)
    }

    /// Writes the transaction row when something changed; returns whether it did. Always stops the
    /// triggers from using the number.
    func finish(_ number: Int64, metadata: TransactionMetadata, entities: [(String, ChangeCounts, ClosedRange<Int64>?)]) throws -> Bool {
        defer { store.transactionState.number = nil }
        return try store.recordTransaction(number, metadata: metadata, entities: entities)
    }
}
