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
                func count(_ i: Int32) -> Int { Int(row.int64(at: i)) }
                result.append(HistoryTransaction(
                    number: row.int64(at: 0), token: row.string(at: 1) ?? "", timestamp: row.string(at: 2) ?? "",
                    author: row.string(at: 3) ?? "", context: row.string(at: 4) ?? "", processID: Int(row.int64(at: 5)),
                    host: row.string(at: 6) ?? "", sources: sources,
                    totals: ChangeCounts(inserted: count(8), updated: count(9), deleted: count(10), unchanged: count(11), rejected: count(12), duplicates: count(13)),
                    entities: []))
            }
            let entityRows = try store.connection.prepare("SELECT entity, inserted, updated, deleted, unchanged, rejected, duplicates FROM importer_transaction_entity WHERE transaction_number = ?1 ORDER BY entity")
            for index in result.indices {
                try entityRows.forEachRow([.integer(result[index].number)]) { row in
                    func count(_ i: Int32) -> Int { Int(row.int64(at: i)) }
                    result[index].entities.append((row.string(at: 0) ?? "", ChangeCounts(inserted: count(1), updated: count(2), deleted: count(3), unchanged: count(4), rejected: count(5), duplicates: count(6))))
                }
            }
            return result
        }
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
    /// selects, in order. Memory stays bounded: rows are decoded one at a time.
    public func forEachChange(after: Int64 = 0, through: Int64 = .max, filter: ChangeFilter = .all,
                              _ body: (Change) throws -> Void) throws {
        let entities = store.entities.filter { filter.includes(entity: $0.name) }
        var skipped = Set<Int64>()
        if !filter.excludedAuthors.isEmpty {
            let statement = try store.connection.prepare("SELECT number, author FROM importer_transaction WHERE number > ?1 AND number <= ?2")
            try statement.forEachRow([.integer(after), .integer(through)]) { row in
                if !filter.includes(author: row.string(at: 1) ?? "") { skipped.insert(row.int64(at: 0)) }
            }
        }
        var cursors = try entities.map { try ChangeCursor(store: store, entity: $0, after: after, through: through) }
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
                    if filter.includes(change) { try body(change) }
                }
                try cursors[index].advance()
            }
        }
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

    init(store: Store, entity: EntityDescription, after: Int64, through: Int64) throws {
        self.entity = entity
        let schema = EntitySchema(entity: entity)
        let names = entity.attributes.map { SQLIdentifier.quoted($0.name) }
        let olds = entity.attributes.map { SQLIdentifier.quoted("old." + $0.name) }
        // Each transaction's changes are a contiguous range of change ids.
        var range: (Int64, Int64) = (1, 0)
        if let row = try store.connection.rows("""
            SELECT min(first_change_id), max(last_change_id) FROM importer_transaction_entity
            WHERE entity = ?1 AND transaction_number > ?2 AND transaction_number <= ?3
            """, [.text(entity.name), .integer(after), .integer(through)]).first,
           case .integer(let low) = row[0], case .integer(let high) = row[1] {
            range = (low, high)
        }
        statement = try store.connection.prepare("""
            SELECT "transaction_number", "record_id", "type", "changed", \((names + olds).joined(separator: ", "))
            FROM \(schema.changeTable) WHERE "change_id" BETWEEN ?1 AND ?2 ORDER BY "change_id"
            """)
        statement.bind(range.0, at: 1)
        statement.bind(range.1, at: 2)
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
