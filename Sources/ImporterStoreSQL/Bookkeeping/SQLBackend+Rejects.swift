import ImporterModel
import ImporterStore

/// Rejected records (`importer_reject`), tagged with the run that met them. A run gets a number
/// (`importer_metadata.last_run_number`) only when it stores rejects, so a run that changes nothing
/// and rejects nothing still writes nothing.
extension SQLBackend {
    /// The columns a reject is stored in, in the order of `rejectRow`.
    package static var rejectColumns: String {
        #""run", "created_at", "source", "line", "column", "record", "path", "entity", "attribute", "reason", "value""#
    }

    /// Allocates the next run number, inside the run's write transaction.
    package func allocateRejectRun() throws -> Int64 {
        let next = try metadataInteger("last_run_number") + 1
        try setMetadata([("last_run_number", dialect.metadataValue(next))])
        return next
    }

    /// A reject's stored values (see `rejectColumns`), its text passed through `text`.
    package static func rejectRow(_ reject: Reject, run: Int64, at timestamp: String, text: (String) -> Value = Value.text) -> [Value] {
        [.integer(run), .text(timestamp), text(reject.location.source), .integer(Int64(reject.location.line)),
         .integer(Int64(reject.location.column)), reject.location.recordIndex.map { .integer(Int64($0)) } ?? .null,
         reject.location.path.map(text) ?? .null, .text(reject.entity), reject.attribute.map(Value.text) ?? .null,
         text(reject.reason), reject.rawValue.map(text) ?? .null]
    }

    /// Records that the rejects of `run` belong to history transaction `transaction`.
    package func tagRejects(run: Int64, transaction: Int64) throws {
        try executor.execute(#"UPDATE importer_reject SET "transaction_number" = \#(p(2)) WHERE "run" = \#(p(1))"#, [.integer(run), .integer(transaction)])
    }

    package func rejectRuns() throws(StoreError) -> [RejectRunSummary] {
        try mapErrors {
            try executor.rows("""
                SELECT "run", max("transaction_number"), min("created_at"), count(*), \(dialect.distinctList(#""source""#))
                FROM importer_reject GROUP BY "run" ORDER BY "run"
                """, []).map { row in
                RejectRunSummary(run: row[0].integerValue ?? 0, transactionNumber: row[1].integerValue,
                                 createdAt: row[2].stringValue ?? "", count: Int(row[3].integerValue ?? 0),
                                 sources: (row[4].stringValue ?? "").split(separator: ",").map(String.init))
            }
        }
    }

    /// The rejects of a run (the latest when nil), in the order they were met.
    package func rejects(run: Int64?) throws(StoreError) -> (run: Int64?, rejects: [Reject]) {
        try mapErrors {
            guard let number = try run ?? executor.scalar(#"SELECT max("run") FROM importer_reject"#)?.integerValue else { return (nil, []) }
            let rejects = try executor.rows("""
                SELECT "source", "line", "column", "record", "path", "entity", "attribute", "reason", "value" FROM importer_reject
                WHERE "run" = \(p(1)) ORDER BY "id"
                """, [.integer(number)]).map { row in
                Reject(location: SourceLocation(source: row[0].stringValue ?? "", line: Int(row[1].integerValue ?? 0), column: Int(row[2].integerValue ?? 0),
                                                recordIndex: row[3].integerValue.map { Int($0) }, path: row[4].stringValue),
                       entity: row[5].stringValue ?? "", attribute: row[6].stringValue, reason: row[7].stringValue ?? "", rawValue: row[8].stringValue)
            }
            return (number, rejects)
        }
    }

    /// Deletes the rejects of one run, or all; returns how many (inside a write transaction).
    package func clearRejects(run: Int64?) throws(StoreError) -> Int {
        try mapErrors {
            guard let run else { return try executor.affected("DELETE FROM importer_reject", []) }
            return try executor.affected(#"DELETE FROM importer_reject WHERE "run" = \#(p(1))"#, [.integer(run)])
        }
    }

    /// The counts of `importer status` that both backends count alike; the backend adds its schema
    /// version and sizes.
    package func commonStatusCounts() throws -> StoreCounts {
        var counts = StoreCounts()
        counts.createdAt = try metadata("created_at")?.stringValue
        counts.purgedAt = try metadata("purged_at")?.stringValue
        for entity in entities {
            let tables = tables(of: entity)
            counts.records.append(Int(try executor.integer("SELECT count(*) FROM \(tables.table)")))
            counts.changes += Int(try executor.integer("SELECT count(*) FROM \(tables.changeTable)"))
        }
        // A removed entity's past changes are history still.
        for entity in try retiredEntities() {
            counts.changes += Int(try executor.integer("SELECT count(*) FROM \(tables(of: entity).changeTable)"))
        }
        let row = try executor.rows(#"SELECT count(*), coalesce(min("number"), 0), coalesce(max("number"), 0) FROM importer_transaction"#, []).first ?? []
        counts.transactions = Int(row.first?.integerValue ?? 0)
        counts.oldestTransaction = row.count > 1 ? row[1].integerValue ?? 0 : 0
        counts.newestTransaction = row.count > 2 ? row[2].integerValue ?? 0 : 0
        counts.rejectRuns = Int(try executor.integer(#"SELECT count(DISTINCT "run") FROM importer_reject"#))
        counts.rejects = Int(try executor.integer("SELECT count(*) FROM importer_reject"))
        return counts
    }
}
