import Foundation
import ImporterModel
import ImporterStore

/// History as both backends list and purge it: `importer_transaction` (one row per transaction),
/// `importer_transaction_entity` (its counts and change-id range per entity) and the change tables,
/// whose rows of one transaction and entity are a contiguous range of ids.
extension SQLBackend {
    package func transactions(after: Int64, through: Int64, limit: Int?) throws(StoreError) -> [HistoryTransaction] {
        try mapErrors {
            let counts = #""inserted", "updated", "deleted", "unchanged", "rejected", "duplicates", \#(storesRekeyedCounts ? #""rekeyed""# : "0")"#
            var sql = """
                SELECT "number", "token", "timestamp", "author", "context", "process_id", "host", "source", \(counts)
                FROM importer_transaction WHERE "number" > \(p(1)) AND "number" <= \(p(2)) ORDER BY "number"
                """
            if let limit { sql += " LIMIT \(limit)" }
            var result = try executor.rows(sql, [.integer(after), .integer(through)]).map { row in
                HistoryTransaction(
                    number: row[0].integerValue ?? 0, token: row[1].stringValue ?? "", timestamp: row[2].stringValue ?? "",
                    author: row[3].stringValue ?? "", context: row[4].stringValue ?? "", processID: Int(row[5].integerValue ?? 0),
                    host: row[6].stringValue ?? "", sources: (try? JSONDecoder().decode([String].self, from: Data((row[7].stringValue ?? "[]").utf8))) ?? [],
                    totals: Self.counts(row, from: 8), entities: [])
            }
            guard let first = result.first, let last = result.last else { return result }
            let byNumber = Dictionary(uniqueKeysWithValues: result.indices.map { (result[$0].number, $0) })
            for row in try executor.rows("""
                SELECT "transaction_number", "entity", \(counts) FROM importer_transaction_entity
                WHERE "transaction_number" BETWEEN \(p(1)) AND \(p(2)) ORDER BY "transaction_number", \(dialect.bytewise(#""entity""#))
                """, [.integer(first.number), .integer(last.number)]) {
                if let index = byNumber[row[0].integerValue ?? 0] { result[index].entities.append((row[1].stringValue ?? "", Self.counts(row, from: 2))) }
            }
            return result
        }
    }

    /// The seven counts stored from column `first` on (inserted, updated, deleted, unchanged,
    /// rejected, duplicates, rekeyed).
    private static func counts(_ row: [Value], from first: Int) -> ChangeCounts {
        func count(_ offset: Int) -> Int { Int(row[first + offset].integerValue ?? 0) }
        return ChangeCounts(inserted: count(0), updated: count(1), deleted: count(2), unchanged: count(3), rejected: count(4),
                            duplicates: count(5), rekeyed: count(6))
    }

    package func lastTransaction(before timestamp: String) throws(StoreError) -> Int64? {
        try mapErrors {
            try executor.scalar(#"SELECT max("number") FROM importer_transaction WHERE "timestamp" < \#(p(1))"#, [.text(timestamp)])?.integerValue
        }
    }

    /// The ids of `entity`'s change rows for the transactions `after < number <= through`, or nil
    /// when there are none.
    package func changeRange(of entity: String, after: Int64, through: Int64) throws(StoreError) -> ClosedRange<Int64>? {
        let row = try mapErrors {
            try executor.rows("""
                SELECT min("first_change_id"), max("last_change_id") FROM importer_transaction_entity
                WHERE "entity" = \(p(1)) AND "transaction_number" > \(p(2)) AND "transaction_number" <= \(p(3))
                """, [.text(entity), .integer(after), .integer(through)]).first
        }
        guard let row, let low = row[0].integerValue, let high = row[1].integerValue, low <= high else { return nil }
        return low...high
    }

    package func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws(StoreError) -> [Int64] {
        guard !recordIDs.isEmpty else { return [] }
        let tables = tables(of: entity)
        let ids = dialect.isOneOf(tables.recordID, recordIDs, parameter: 2)
        return try mapErrors {
            try executor.rows("""
                SELECT DISTINCT \(tables.transactionNumber) FROM \(tables.changeTable)
                WHERE \(tables.transactionNumber) > \(p(1)) AND \(ids.condition) ORDER BY 1
                """, [.integer(number)] + ids.arguments).compactMap { $0[0].integerValue }
        }
    }

    /// Deletes the history of the transactions up to `through` (their change rows by id range) and
    /// records the purged boundary.
    package func purgeHistory(through: Int64) throws(StoreError) -> (transactions: Int, changes: Int) {
        try mapErrors {
            let sql = executor
            var changes = 0
            for entity in try entities + retiredEntities() {
                guard let last = try sql.scalar("""
                    SELECT max("last_change_id") FROM importer_transaction_entity WHERE "entity" = \(p(1)) AND "transaction_number" <= \(p(2))
                    """, [.text(entity.name), .integer(through)])?.integerValue else { continue }
                let tables = tables(of: entity)
                changes += try sql.affected("DELETE FROM \(tables.changeTable) WHERE \(tables.changeID) <= \(p(1))", [.integer(last)])
            }
            try sql.execute(#"DELETE FROM importer_transaction_entity WHERE "transaction_number" <= \#(p(1))"#, [.integer(through)])
            let transactions = try sql.affected(#"DELETE FROM importer_transaction WHERE "number" <= \#(p(1))"#, [.integer(through)])
            try setMetadata([("purged_through", dialect.metadataValue(through)), ("purged_at", .text(Timestamp.now()))])
            return (transactions, changes)
        }
    }
}
