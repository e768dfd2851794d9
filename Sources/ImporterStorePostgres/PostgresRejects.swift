import Foundation
import ImporterModel
import ImporterStore

/// Rejected records in PostgreSQL (`importer_reject`), tagged with the run that met them; a run
/// gets a number (`last_run_number`) only when it stores rejects.
struct PostgresRejects {
    let store: PostgresStore

    func allocateRun() throws -> Int64 {
        try store.connection.integer(#"UPDATE importer_metadata SET "value" = ("value"::bigint + 1)::text WHERE "key" = 'last_run_number' RETURNING "value"::bigint"#)
    }

    func insert(_ reject: Reject, run: Int64, at timestamp: String) throws {
        try store.connection.affected("""
            INSERT INTO importer_reject ("run", "created_at", "source", "line", "column", "record", "path", "entity", "attribute", "reason", "value")
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """, [
            .integer(run), .text(timestamp), .text(reject.location.source), .integer(Int64(reject.location.line)),
            .integer(Int64(reject.location.column)), reject.location.recordIndex.map { .integer(Int64($0)) } ?? .null,
            reject.location.path.map(Value.text) ?? .null, .text(reject.entity), reject.attribute.map(Value.text) ?? .null,
            .text(reject.reason), reject.rawValue.map(Value.text) ?? .null,
        ])
    }

    func tag(run: Int64, transaction: Int64) throws {
        try store.connection.affected(#"UPDATE importer_reject SET "transaction_number" = $2 WHERE "run" = $1"#, [.integer(run), .integer(transaction)])
    }
}
