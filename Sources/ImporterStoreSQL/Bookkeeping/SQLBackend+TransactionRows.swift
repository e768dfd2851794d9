import Foundation
import ImporterModel
import ImporterStore

/// Writing history transactions as both backends store them: the transaction's row with its
/// counts, one row per entity with its counts and change-id range, and the store's last
/// transaction number; and counting what an entity's change rows hold.
extension SQLBackend {
    /// Writes the rows of history transaction `number` when something changed, and makes it the
    /// store's last; returns whether it wrote (a transaction that changed nothing leaves no trace).
    /// Inside the write transaction that made the changes.
    package func recordTransaction(_ number: Int64, metadata: TransactionMetadata, entities: [(String, ChangeCounts, ClosedRange<Int64>?)],
                                   evenIfEmpty: Bool = false) throws -> Bool {
        let totals = entities.reduce(ChangeCounts()) { $0 + $1.1 }
        guard totals.changes > 0 || evenIfEmpty else { return false }
        let sql = executor
        let sources = String(decoding: try JSONEncoder().encode(metadata.sources), as: UTF8.self)
        func counts(_ c: ChangeCounts) -> [Value] {
            [c.inserted, c.updated, c.deleted, c.unchanged, c.rejected, c.duplicates, c.rekeyed].map { .integer(Int64($0)) }
        }
        try sql.execute("""
            INSERT INTO importer_transaction ("number", "token", "timestamp", "author", "context", "process_id", "host", "source",
              "inserted", "updated", "deleted", "unchanged", "rejected", "duplicates", "rekeyed")
            VALUES (\((1...15).map(p).joined(separator: ", ")))
            """, [.integer(number), .text(token(number).description), .text(metadata.timestamp ?? Timestamp.now()), .text(metadata.author),
                  .text(metadata.context), .integer(Int64(metadata.processID)), .text(metadata.host), .text(sources)] + counts(totals))
        for (name, entityCounts, range) in entities {
            try sql.execute("""
                INSERT INTO importer_transaction_entity ("transaction_number", "entity", "inserted", "updated", "deleted", "unchanged",
                  "rejected", "duplicates", "rekeyed", "first_change_id", "last_change_id")
                VALUES (\((1...11).map(p).joined(separator: ", ")))
                """, [.integer(number), .text(name)] + counts(entityCounts)
                    + [range.map { .integer($0.lowerBound) } ?? .null, range.map { .integer($0.upperBound) } ?? .null])
        }
        try sql.execute(#"UPDATE importer_metadata SET "value" = \#(p(1)) WHERE "key" = 'last_transaction_number'"#, [dialect.metadataValue(number)])
        return true
    }

    /// The counts by type of `entity`'s change rows above change id `after` (inserts, updates,
    /// deletes; the rest zero), and the range of their ids (nil when there are none). One scan,
    /// no grouping: `GROUP BY` the type sorted every change row of the run first, which in SQLite
    /// held about 30 bytes a row in memory at once (a 500,000-change reload: 15 MB more at its peak).
    package func changeCounts(of entity: EntityDescription, after: Int64) throws -> (counts: ChangeCounts, changeIDs: ClosedRange<Int64>?) {
        let tables = tables(of: entity)
        let types = ["insert", "update", "delete"]
        let columns = types.map { type in
            let id = "CASE WHEN \(tables.type) = '\(type)' THEN \(tables.changeID) END"
            return "count(\(id)), min(\(id)), max(\(id))"
        }
        let rows = try executor.rows("SELECT \(columns.joined(separator: ", ")) FROM \(tables.changeTable) WHERE \(tables.changeID) > \(p(1))",
                                     [.integer(after)])
        var counts = ChangeCounts()
        var range: ClosedRange<Int64>?
        guard let row = rows.first else { return (counts, nil) }
        for (index, type) in types.enumerated() {
            guard let n = row[3 * index].integerValue, n > 0, let low = row[3 * index + 1].integerValue, let high = row[3 * index + 2].integerValue else { continue }
            switch type {
            case "insert": counts.inserted = Int(n)
            case "update": counts.updated = Int(n)
            default: counts.deleted = Int(n)
            }
            range = min(range?.lowerBound ?? low, low)...max(range?.upperBound ?? high, high)
        }
        return (counts, range)
    }
}
