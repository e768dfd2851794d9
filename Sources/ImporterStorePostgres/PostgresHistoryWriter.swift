import Foundation
import ImporterModel
import ImporterStore

/// Writes a history transaction's row, its per-entity counts and change-id ranges, and moves the
/// store's last transaction number; nothing when no record changed (as on SQLite).
struct PostgresHistoryWriter {
    let store: PostgresStore

    func finish(_ number: Int64, metadata: TransactionMetadata, entities: [(String, ChangeCounts, ClosedRange<Int64>?)]) throws -> Bool {
        let totals = entities.reduce(ChangeCounts()) { $0 + $1.1 }
        guard totals.changes > 0 else { return false }
        let sources = String(decoding: try JSONEncoder().encode(metadata.sources), as: UTF8.self)
        func counts(_ c: ChangeCounts) -> [Value] {
            [c.inserted, c.updated, c.deleted, c.unchanged, c.rejected, c.duplicates, c.rekeyed].map { .integer(Int64($0)) }
        }
        try store.connection.affected("""
            INSERT INTO importer_transaction ("number", "token", "timestamp", "author", "context", "process_id", "host", "source",
              "inserted", "updated", "deleted", "unchanged", "rejected", "duplicates", "rekeyed")
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
            """, [.integer(number), .text(store.token(number).description), .text(Timestamp.now()), .text(metadata.author),
                  .text(metadata.context), .integer(Int64(metadata.processID)), .text(metadata.host), .text(sources)] + counts(totals))
        for (name, entityCounts, range) in entities {
            try store.connection.affected("""
                INSERT INTO importer_transaction_entity ("transaction_number", "entity", "inserted", "updated", "deleted", "unchanged",
                  "rejected", "duplicates", "rekeyed", "first_change_id", "last_change_id")
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                """, [.integer(number), .text(name)] + counts(entityCounts)
                    + [range.map { .integer($0.lowerBound) } ?? .null, range.map { .integer($0.upperBound) } ?? .null])
        }
        try store.connection.affected(#"UPDATE importer_metadata SET "value" = $1 WHERE "key" = 'last_transaction_number'"#, [.text(String(number))])
        return true
    }
}
