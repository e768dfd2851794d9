import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// History, purge and consumers in SQLite: `importer_transaction`, `importer_transaction_entity`,
/// the per-entity change tables and `importer_consumer`.
extension SQLiteStore {
    public func commitMarker() throws(StoreError) -> Int64 {
        try mapErrors { try connection.dataVersion() }
    }

    public func purgedThrough() throws(StoreError) -> Int64 {
        try mapErrors {
            if case .integer(let n)? = try metadata("purged_through") { return n }
            return 0
        }
    }

    public func transactions(after: Int64, through: Int64, limit: Int?) throws(StoreError) -> [HistoryTransaction] {
        try mapErrors {
            let rekeyed = schemaVersion >= 2 ? "rekeyed" : "0"
            var sql = "SELECT number, token, timestamp, author, context, process_id, host, source, inserted, updated, deleted, unchanged, rejected, duplicates, \(rekeyed) FROM importer_transaction WHERE number > ?1 AND number <= ?2 ORDER BY number"
            if let limit { sql += " LIMIT \(limit)" }
            var result: [HistoryTransaction] = []
            try connection.prepare(sql).forEachRow([.integer(after), .integer(through)]) { row in
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
            try connection.prepare("""
                SELECT transaction_number, entity, inserted, updated, deleted, unchanged, rejected, duplicates, \(rekeyed) FROM importer_transaction_entity
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

    /// The seven counts stored from column `first` on (inserted, updated, deleted, unchanged,
    /// rejected, duplicates, rekeyed).
    private static func counts(_ row: Statement, from first: Int32) -> ChangeCounts {
        func count(_ offset: Int32) -> Int { Int(row.int64(at: first + offset)) }
        return ChangeCounts(inserted: count(0), updated: count(1), deleted: count(2), unchanged: count(3), rejected: count(4), duplicates: count(5),
                            rekeyed: count(6))
    }

    public func lastTransaction(before timestamp: String) throws(StoreError) -> Int64? {
        try mapErrors {
            if case .integer(let n)? = try connection.scalar("SELECT max(number) FROM importer_transaction WHERE timestamp < ?1", [.text(timestamp)]) { return n }
            return nil
        }
    }

    /// Merges the per-entity change streams by transaction number (entity order breaks ties).
    public func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws {
        var remaining = limit ?? .max
        guard remaining > 0 else { return }
        var skipped = Set<Int64>()
        if !filter.excludedAuthors.isEmpty {
            let statement = try connection.prepare("SELECT number, author FROM importer_transaction WHERE number > ?1 AND number <= ?2")
            try statement.forEachRow([.integer(after), .integer(through)]) { row in
                if !filter.includes(author: row.string(at: 1) ?? "") { skipped.insert(row.int64(at: 0)) }
            }
        }
        var cursors = try entities.filter { filter.includes(entity: $0.name) }.map {
            try ChangeCursor(connection: connection, entity: $0, columns: changeColumns, changeIDs: try changeIDs(of: $0.name, after: after, through: through))
        }
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

    /// The ids of `entity`'s change rows for the transactions `after < number <= through` (each
    /// transaction's changes are a contiguous range of ids), or nil when there are none.
    func changeIDs(of entity: String, after: Int64, through: Int64) throws -> ClosedRange<Int64>? {
        guard let row = try connection.rows("""
            SELECT min(first_change_id), max(last_change_id) FROM importer_transaction_entity
            WHERE entity = ?1 AND transaction_number > ?2 AND transaction_number <= ?3
            """, [.text(entity), .integer(after), .integer(through)]).first,
            case .integer(let low) = row[0], case .integer(let high) = row[1], low <= high else { return nil }
        return low...high
    }

    public func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws -> [Int64] {
        guard !recordIDs.isEmpty else { return [] }
        let schema = EntitySchema(entity: entity, columns: changeColumns)
        return try connection.rows("""
            SELECT DISTINCT \(schema.transactionNumber) FROM \(schema.changeTable)
            WHERE \(schema.transactionNumber) > ?1 AND \(schema.recordID) IN (\(recordIDs.map(String.init).joined(separator: ", "))) ORDER BY 1
            """, [.integer(number)]).compactMap { if case .integer(let n) = $0[0] { n } else { nil } }
    }

    public func purgeHistory(through: Int64) throws(StoreError) -> (transactions: Int, changes: Int) {
        try mapErrors {
            var changes = 0
            for entity in entities {
                let schema = EntitySchema(entity: entity, columns: changeColumns)
                guard case .integer(let last)? = try connection.scalar(
                    "SELECT max(last_change_id) FROM importer_transaction_entity WHERE entity = ?1 AND transaction_number <= ?2",
                    [.text(entity.name), .integer(through)]) else { continue }
                try connection.execute("DELETE FROM \(schema.changeTable) WHERE \(schema.changeID) <= ?1", [.integer(last)])
                changes += connection.changes
            }
            try connection.execute("DELETE FROM importer_transaction_entity WHERE transaction_number <= ?1", [.integer(through)])
            try connection.execute("DELETE FROM importer_transaction WHERE number <= ?1", [.integer(through)])
            let transactions = connection.changes
            try connection.execute("""
                INSERT INTO importer_metadata (key, value) VALUES ('purged_through', ?1), ('purged_at', ?2)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, [.integer(through), .text(Timestamp.now())])
            return (transactions, changes)
        }
    }

    // MARK: Consumers

    private static let consumerColumns = Consumer.storedColumnNames.joined(separator: ", ")

    public func consumers() throws(StoreError) -> [Consumer] {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer ORDER BY kind, name").compactMap(Consumer.init(storedRow:)) }
    }

    public func consumer(named name: String) throws(StoreError) -> Consumer? {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer WHERE name = ?1", [.text(name)]).first.flatMap(Consumer.init(storedRow:)) }
    }

    public func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool {
        try mapErrors {
            let existing = try connection.scalar("SELECT count(*) FROM importer_consumer WHERE name = ?1", [.text(consumer.name)])
            guard existing == .integer(0) else { return false }
            try connection.execute("INSERT INTO importer_consumer (\(Self.consumerColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", consumer.storedRow)
            return true
        }
    }

    public func deleteConsumer(named name: String) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.execute("DELETE FROM importer_consumer WHERE name = ?1", [.text(name)])
            return connection.changes == 1
        }
    }

    public func setConsumerToken(_ name: String, to number: Int64, replayedAt: String?) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.execute("UPDATE importer_consumer SET token_number = ?2, last_replay_at = coalesce(?3, last_replay_at) WHERE name = ?1",
                                   [.text(name), .integer(number), replayedAt.map(Value.text) ?? .null])
            return connection.changes == 1
        }
    }

    public func advanceConsumerToken(_ name: String, from: Int64, to: Int64, at timestamp: String) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.execute("UPDATE importer_consumer SET token_number = ?3, last_replay_at = ?4 WHERE name = ?1 AND token_number = ?2",
                                   [.text(name), .integer(from), .integer(to), .text(timestamp)])
            return connection.changes == 1
        }
    }
}

extension SQLiteStore: StoreBackend {}
