import Foundation
import ImporterModel
import ImporterStore

/// The parts of the store protocol this backend does not implement yet: each fails with
/// `StoreError.unsupported` naming what was asked (exit 78), before anything is written. The
/// README lists the commands that work on PostgreSQL today.
extension PostgresStore: StoreBackend {
    public func reloadEntities() throws(StoreError) {}
    public func commitMarker() throws(StoreError) -> Int64 { throw unsupported("watching a store") }

    public func transactions(after: Int64, through: Int64, limit: Int?) throws(StoreError) -> [HistoryTransaction] {
        throw unsupported("reading history")
    }
    public func lastTransaction(before timestamp: String) throws(StoreError) -> Int64? { throw unsupported("reading history") }
    public func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws {
        throw unsupported("reading history")
    }
    public func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws -> [Int64] {
        throw unsupported("undo")
    }
    public func purgeHistory(through: Int64) throws(StoreError) -> (transactions: Int, changes: Int) { throw unsupported("purging history") }

    public func ensureEntities(_ entities: [EntityDescription]) throws { throw unsupported("importing") }
    public func beginImport(_ entities: [EntityDescription]) throws -> any ImportTransaction { throw unsupported("importing") }
    public func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction { throw unsupported("undo") }
    public func forEachRecord(of entity: EntityDescription, _ body: (Int64, [Value]) throws -> Void) throws { throw unsupported("exporting records") }
    public func recordCount(of entity: EntityDescription) throws(StoreError) -> Int { throw unsupported("counting records") }

    public func registeredViews() throws(StoreError) -> [ViewDefinition] { throw unsupported("derived views") }
    public func installView(_ view: ViewDefinition, replacing: Bool) throws { throw unsupported("derived views") }
    public func viewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] { throw unsupported("derived views") }
    public func recomputedViewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] { throw unsupported("derived views") }
    public func orderedViewRows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) { throw unsupported("derived views") }
    public func applyViewChanges(_ view: ViewDefinition, changes: ClosedRange<Int64>, into effect: inout ViewEffect) throws {
        throw unsupported("derived views")
    }
    public func rebuildViews(_ views: [ViewDefinition]) throws { throw unsupported("derived views") }
    public func changeRange(of entity: String, after: Int64, through: Int64) throws -> ClosedRange<Int64>? { throw unsupported("derived views") }
    public func recordCountUpperBound(of entity: EntityDescription) throws -> Int64 { throw unsupported("derived views") }

    public func rejectRuns() throws -> [RejectRunSummary] { throw unsupported("rejects") }
    public func rejects(run: Int64?) throws -> (run: Int64?, rejects: [Reject]) { throw unsupported("rejects") }
    public func clearRejects(run: Int64?) throws -> Int { throw unsupported("rejects") }
    public func statusCounts() throws -> StoreCounts { throw unsupported("status") }

    public func consumers() throws(StoreError) -> [Consumer] { throw unsupported("consumers") }
    public func consumer(named name: String) throws(StoreError) -> Consumer? { throw unsupported("consumers") }
    public func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool { throw unsupported("consumers") }
    public func deleteConsumer(named name: String) throws(StoreError) -> Bool { throw unsupported("consumers") }
    public func setConsumerToken(_ name: String, to number: Int64, replayedAt: String?) throws(StoreError) -> Bool { throw unsupported("consumers") }
    public func advanceConsumerToken(_ name: String, from: Int64, to: Int64, at timestamp: String) throws(StoreError) -> Bool {
        throw unsupported("consumers")
    }
}
