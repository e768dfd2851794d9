import Foundation

/// Reads history transactions and their changes from the store, streaming.
///
/// Changes come in transaction order, and within a transaction by entity (registration order), then
/// updates and deletes in the order they were made, then inserts by record id. Decoding uses the
/// entities as the store registered them.
public struct HistoryReader {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Transactions with `after < number <= through`, oldest first.
    public func transactions(after: Int64 = 0, through: Int64 = .max, limit: Int? = nil) throws(StoreError) -> [HistoryTransaction] {
        try store.mapErrors {
            var sql = "SELECT number, token, timestamp, author, context, process_id, host, source, inserted, updated, deleted, unchanged, rejected, duplicates FROM importer_transaction WHERE number > ?1 AND number <= ?2 ORDER BY number"
            if let limit { sql += " LIMIT \(limit)" }
            var result: [HistoryTransaction] = []
            try store.connection.prepare(sql).forEachRow([.integer(after), .integer(through)]) { row in
                let sources = (try? JSONDecoder().decode([String].self, from: Data((row.string(at: 7) ?? "[]").utf8))) ?? []
                result.append(HistoryTransaction(
                    number: row.int64(at: 0), token: row.string(at: 1) ?? "", timestamp: row.string(at: 2) ?? "",
                    author: row.string(at: 3) ?? "", context: row.string(at: 4) ?? "", processID: Int(row.int64(at: 5)),
                    host: row.string(at: 6) ?? "", sources: sources, totals: Self.counts(row, from: 8), entities: []))
            }
            guard let first = result.first, let last = result.last else { return result }
            // The per-entity counts of the whole range in one query, merged in step (both are in
            // transaction order).
            var index = 0
            try store.connection.prepare("""
                SELECT transaction_number, entity, inserted, updated, deleted, unchanged, rejected, duplicates FROM importer_transaction_entity
                WHERE transaction_number >= ?1 AND transaction_number <= ?2 ORDER BY transaction_number, entity
                """).forEachRow([.integer(first.number), .integer(last.number)]) { row in
                let number = row.int64(at: 0)
                while index < result.count, result[index].number < number { index += 1 }
                guard index < result.count, result[index].number == number else { return }
                result[index].entities.append((row.string(at: 1) ?? "", Self.counts(row, from: 2)))
            }
            return result
        }
    }

    /// The six counts stored from column `first` on (inserted, updated, deleted, unchanged,
    /// rejected, duplicates).
    private static func counts(_ row: Statement, from first: Int32) -> ChangeCounts {
        func count(_ offset: Int32) -> Int { Int(row.int64(at: first + offset)) }
        return ChangeCounts(inserted: count(0), updated: count(1), deleted: count(2), unchanged: count(3), rejected: count(4), duplicates: count(5))
    }

    /// The last transaction with a timestamp before `timestamp` (history form), or the purged
    /// boundary when none is kept.
    public func lastTransaction(before timestamp: String) throws -> Int64 {
        if case .integer(let n)? = try store.connection.scalar("SELECT max(number) FROM importer_transaction WHERE timestamp < ?1", [.text(timestamp)]) { return n }
        return try store.purgedThrough()
    }

    public func transaction(_ number: Int64) throws(StoreError) -> HistoryTransaction? {
        try transactions(after: number - 1, through: number).first
    }

    /// Calls `body` with each change of the transactions `after < number <= through` that `filter`
    /// selects, in order, stopping after `limit` changes. Memory stays bounded: rows are decoded one
    /// at a time.
    public func forEachChange(after: Int64 = 0, through: Int64 = .max, filter: ChangeFilter = .all, limit: Int? = nil,
                              _ body: (Change) throws -> Void) throws {
        var remaining = limit ?? .max
        guard remaining > 0 else { return }
        let entities = store.entities.filter { filter.includes(entity: $0.name) }
        var skipped = Set<Int64>()
        if !filter.excludedAuthors.isEmpty {
            let statement = try store.connection.prepare("SELECT number, author FROM importer_transaction WHERE number > ?1 AND number <= ?2")
            try statement.forEachRow([.integer(after), .integer(through)]) { row in
                if !filter.includes(author: row.string(at: 1) ?? "") { skipped.insert(row.int64(at: 0)) }
            }
        }
        var cursors = try entities.map {
            try ChangeCursor(store: store, entity: $0, changeIDs: try changeIDs(of: $0.name, after: after, through: through))
        }
        // Merge the per-entity streams by transaction number (entity order breaks ties).
        while true {
            var best: Int?
            for index in cursors.indices {
                guard let number = cursors[index].currentTransaction else { continue }
                if let current = best, let bestNumber = cursors[current].currentTransaction, bestNumber <= number { continue }
                best = index
            }
            guard let index = best, let number = cursors[index].currentTransaction else { return }
            while cursors[index].currentTransaction == number {
                if !skipped.contains(number) {
                    let change = cursors[index].change()
                    if filter.includes(change) {
                        try body(change)
                        remaining -= 1
                        if remaining == 0 { return }
                    }
                }
                try cursors[index].advance()
            }
        }
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

    /// The ids of `entity`'s change rows for the transactions `after < number <= through` (each
    /// transaction's changes are a contiguous range of ids), or nil when there are none.
    func changeIDs(of entity: String, after: Int64, through: Int64) throws -> ClosedRange<Int64>? {
        guard let row = try store.connection.rows("""
            SELECT min(first_change_id), max(last_change_id) FROM importer_transaction_entity
            WHERE entity = ?1 AND transaction_number > ?2 AND transaction_number <= ?3
            """, [.text(entity), .integer(after), .integer(through)]).first,
            case .integer(let low) = row[0], case .integer(let high) = row[1], low <= high else { return nil }
        return low...high
    }

    /// All changes of one transaction (for small transactions and tests).
    public func changes(in number: Int64) throws -> [Change] {
        var result: [Change] = []
        try forEachChange(after: number - 1, through: number) { result.append($0) }
        return result
    }
}

/// A cursor over one entity's change rows in a transaction range.
struct ChangeCursor {
    let entity: EntityDescription
    let statement: Statement
    private(set) var currentTransaction: Int64?
    private let keyIndices: [Int]
    private let tombstoneIndices: [Int]

    /// A cursor over the change rows with ids in `changeIDs` (none when nil).
    init(store: Store, entity: EntityDescription, changeIDs: ClosedRange<Int64>?) throws {
        self.entity = entity
        let schema = EntitySchema(entity: entity)
        let names = entity.attributes.map { SQLIdentifier.quoted($0.name) }
        let olds = entity.attributes.map { EntitySchema.old($0.name) }
        statement = try store.connection.prepare("""
            SELECT "transaction_number", "record_id", "type", "changed", \((names + olds).joined(separator: ", "))
            FROM \(schema.changeTable) WHERE "change_id" BETWEEN ?1 AND ?2 ORDER BY "change_id"
            """)
        statement.bind(changeIDs?.lowerBound ?? 1, at: 1)
        statement.bind(changeIDs?.upperBound ?? 0, at: 2)
        keyIndices = entity.keyIndices
        tombstoneIndices = entity.tombstoneIndices
        try advance()
    }

    mutating func advance() throws {
        currentTransaction = try statement.step() ? statement.int64(at: 0) : nil
    }

    func change() -> Change {
        let attributes = entity.attributes
        let values = attributes.indices.map { (attributes[$0].name, statement.value(at: Int32(4 + $0))) }
        let type = ChangeType(rawValue: statement.string(at: 2) ?? "") ?? .update
        var changed: [AttributeChange] = []
        if type == .update {
            let names = Set((statement.string(at: 3) ?? "").split(separator: ",").map(String.init))
            for (index, attribute) in attributes.enumerated() where names.contains(attribute.name) {
                changed.append(AttributeChange(attribute: attribute.name,
                                               old: statement.value(at: Int32(4 + attributes.count + index)),
                                               new: values[index].1))
            }
        }
        return Change(
            transactionNumber: statement.int64(at: 0), entity: entity.name, recordID: statement.int64(at: 1), type: type,
            key: keyIndices.map { values[$0] }, changed: changed, values: values,
            tombstone: type == .delete ? tombstoneIndices.map { values[$0] } : [])
    }
}
