import Foundation
import ImporterStore

/// Reads history transactions and their changes, streaming, from the snapshot (GRDB style: the
/// caller's read, or its write transaction's `snapshot`).
///
/// Changes come in transaction order, and within a transaction by entity (registration order), then
/// updates and deletes in the order they were made, then inserts by record id. Decoding uses the
/// entities as the store registered them.
extension StoreSnapshot {
    /// Transactions with `after < number <= through`, oldest first.
    public func transactions(after: Int64 = 0, through: Int64 = .max, limit: Int? = nil) throws(StoreError) -> [HistoryTransaction] {
        try history.transactions(after: after, through: through, limit: limit)
    }

    /// The last transaction with a timestamp before `timestamp` (history form), or the purged
    /// boundary when none is kept.
    public func lastTransaction(before timestamp: String) throws -> Int64 {
        try history.lastTransaction(before: timestamp) ?? history.purgedThrough()
    }

    public func transaction(_ number: Int64) throws(StoreError) -> HistoryTransaction? {
        try transactions(after: number - 1, through: number).first
    }

    /// Calls `body` with each change of the transactions `after < number <= through` that `filter`
    /// selects, in order, stopping after `limit` changes. Memory stays bounded: changes are decoded
    /// one at a time.
    public func forEachChange(after: Int64 = 0, through: Int64 = .max, filter: ChangeFilter = .all, limit: Int? = nil,
                              _ body: (Change) throws -> Void) throws {
        try history.forEachChange(after: after, through: through, filter: filter, limit: limit, body)
    }

    /// Calls `body` with each change of `transactions` that `filter` selects, paired with its
    /// transaction, in order: one read over the range they span, each change matched to its
    /// transaction by walking both in step. `transactions` are ascending, as `transactions(...)`
    /// returns them (filtered by `filter`'s authors); changes of transactions not among them are
    /// skipped.
    public func forEachChange(in transactions: [HistoryTransaction], filter: ChangeFilter = .all, limit: Int? = nil,
                              _ body: (Change, HistoryTransaction) throws -> Void) throws {
        guard let first = transactions.first, let last = transactions.last else { return }
        var index = 0
        try forEachChange(after: first.number - 1, through: last.number, filter: filter, limit: limit) { change in
            while index < transactions.count, transactions[index].number < change.transactionNumber { index += 1 }
            guard index < transactions.count, transactions[index].number == change.transactionNumber else { return }
            try body(change, transactions[index])
        }
    }

    /// All changes of one transaction (for small transactions and tests).
    public func changes(in number: Int64) throws -> [Change] {
        var result: [Change] = []
        try forEachChange(after: number - 1, through: number) { result.append($0) }
        return result
    }
}
