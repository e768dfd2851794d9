import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// Rejected records in SQLite (`importer_reject`), tagged with the run that met them.
///
/// A run gets a number (`importer_metadata.last_run_number`) only when it stores rejects, so a run
/// that changes nothing and rejects nothing still writes nothing.
struct SQLiteRejectStore {
    private let backend: SQLiteStore

    init(store: SQLiteStore) {
        backend = store
    }

    /// Allocates the next run number. Call inside the run's write transaction.
    func allocateRun() throws -> Int64 {
        let last: Int64
        if case .integer(let n)? = try backend.metadata("last_run_number") { last = n } else { last = 0 }
        try backend.connection.execute("""
            INSERT INTO importer_metadata (key, value) VALUES ('last_run_number', ?1)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """, [.integer(last + 1)])
        return last + 1
    }

    func insertStatement() throws -> Statement {
        try backend.connection.prepare("""
            INSERT INTO importer_reject (run, created_at, source, line, "column", record, path, entity, attribute, reason, value)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
    }

    func insert(_ reject: Reject, run: Int64, using statement: Statement, at timestamp: String) throws {
        try statement.execute([
            .integer(run), .text(timestamp), .text(reject.location.source), .integer(Int64(reject.location.line)),
            .integer(Int64(reject.location.column)), reject.location.recordIndex.map { .integer(Int64($0)) } ?? .null,
            reject.location.path.map(Value.text) ?? .null, .text(reject.entity), reject.attribute.map(Value.text) ?? .null,
            .text(reject.reason), reject.rawValue.map(Value.text) ?? .null,
        ])
    }

    func tag(run: Int64, transaction: Int64) throws {
        try backend.connection.execute("UPDATE importer_reject SET transaction_number = ?2 WHERE run = ?1", [.integer(run), .integer(transaction)])
    }

    func runs() throws -> [RejectRunSummary] {
        try backend.mapErrors {
            try backend.connection.rows("""
                SELECT run, max(transaction_number), min(created_at), count(*), group_concat(DISTINCT source) FROM importer_reject
                GROUP BY run ORDER BY run
                """).map { row in
                RejectRunSummary(run: row[0].doubleValue.map { Int64($0) } ?? 0, transactionNumber: row[1].doubleValue.map { Int64($0) },
                           createdAt: row[2].stringValue ?? "", count: Int(row[3].doubleValue ?? 0),
                           sources: (row[4].stringValue ?? "").split(separator: ",").map(String.init))
            }
        }
    }

    /// The rejects of a run (the latest when nil), in the order they were met.
    func rejects(run: Int64?) throws -> (run: Int64?, rejects: [Reject]) {
        try backend.mapErrors {
            let number: Int64?
            if let run {
                number = run
            } else if case .integer(let n)? = try backend.connection.scalar("SELECT max(run) FROM importer_reject") {
                number = n
            } else {
                number = nil
            }
            guard let number else { return (nil, []) }
            let rejects = try backend.connection.rows("""
                SELECT source, line, "column", record, path, entity, attribute, reason, value FROM importer_reject WHERE run = ?1 ORDER BY id
                """, [.integer(number)]).map { row in
                Reject(location: SourceLocation(source: row[0].stringValue ?? "", line: Int(row[1].doubleValue ?? 0), column: Int(row[2].doubleValue ?? 0),
                                                recordIndex: row[3].doubleValue.map { Int($0) }, path: row[4].stringValue),
                       entity: row[5].stringValue ?? "", attribute: row[6].stringValue, reason: row[7].stringValue ?? "", rawValue: row[8].stringValue)
            }
            return (number, rejects)
        }
    }

    /// Deletes the rejects of one run, or all; returns how many. Call inside a write transaction.
    func clear(run: Int64?) throws -> Int {
        if let run {
            try backend.connection.execute("DELETE FROM importer_reject WHERE run = ?1", [.integer(run)])
        } else {
            try backend.connection.execute("DELETE FROM importer_reject")
        }
        return backend.connection.changes
    }
}

extension SQLiteStore {
    public func rejectRuns() throws -> [RejectRunSummary] { try SQLiteRejectStore(store: self).runs() }
    public func rejects(run: Int64?) throws -> (run: Int64?, rejects: [Reject]) { try SQLiteRejectStore(store: self).rejects(run: run) }
    public func clearRejects(run: Int64?) throws -> Int { try mapErrors { try SQLiteRejectStore(store: self).clear(run: run) } }

    public func statusCounts() throws -> StoreCounts {
        try mapErrors {
            var counts = StoreCounts()
            counts.schemaVersion = Int(try connection.integer("PRAGMA user_version"))
            counts.createdAt = try metadata("created_at")?.stringValue
            counts.purgedAt = try metadata("purged_at")?.stringValue
            func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0 }
            counts.bytes = size(path)
            counts.walBytes = size(path + "-wal")
            for entity in entities {
                counts.records.append(Int(try connection.integer("SELECT count(*) FROM \(SQLIdentifier.quoted(entity.tableName))")))
                counts.changes += Int(try connection.integer("SELECT count(*) FROM \(EntitySchema(entity: entity).changeTable)"))
            }
            counts.transactions = Int(try connection.integer("SELECT count(*) FROM importer_transaction"))
            counts.oldestTransaction = try connection.integer("SELECT coalesce(min(number), 0) FROM importer_transaction")
            counts.newestTransaction = try connection.integer("SELECT coalesce(max(number), 0) FROM importer_transaction")
            counts.rejectRuns = Int(try connection.integer("SELECT count(DISTINCT run) FROM importer_reject"))
            counts.rejects = Int(try connection.integer("SELECT count(*) FROM importer_reject"))
            return counts
        }
    }
}
