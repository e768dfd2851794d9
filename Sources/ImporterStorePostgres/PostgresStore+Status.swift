import Foundation
import ImporterModel
import ImporterStore

/// What the store holds, counted (`importer status`), as SQLite counts it.
extension PostgresStore {
    public func statusCounts() throws -> StoreCounts {
        try mapErrors {
            var counts = StoreCounts()
            counts.schemaVersion = Int(try metadataInteger("schema_version"))
            counts.createdAt = try connection.scalar(#"SELECT "value" FROM importer_metadata WHERE "key" = 'created_at'"#)?.stringValue
            counts.purgedAt = try connection.scalar(#"SELECT "value" FROM importer_metadata WHERE "key" = 'purged_at'"#)?.stringValue
            for entity in entities {
                let schema = PostgresEntitySchema(entity: entity)
                counts.records.append(Int(try connection.integer("SELECT count(*) FROM \(schema.table)")))
                counts.changes += Int(try connection.integer("SELECT count(*) FROM \(schema.changeTable)"))
            }
            let row = try connection.rows(#"SELECT count(*), coalesce(min("number"), 0), coalesce(max("number"), 0) FROM importer_transaction"#).first ?? []
            counts.transactions = Int(row.first.map(Self.int) ?? 0)
            counts.oldestTransaction = row.count > 1 ? Self.int(row[1]) : 0
            counts.newestTransaction = row.count > 2 ? Self.int(row[2]) : 0
            counts.rejectRuns = Int(try connection.integer(#"SELECT count(DISTINCT "run") FROM importer_reject"#))
            counts.rejects = Int(try connection.integer("SELECT count(*) FROM importer_reject"))
            counts.bytes = Int(try connection.integer("""
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')
                """))
            return counts
        }
    }
}
