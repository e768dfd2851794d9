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

    /// Stores `rejects` (each with the time it was met) under `run`, in one statement.
    func insert(_ rejects: [(Reject, String)], run: Int64) throws {
        guard !rejects.isEmpty else { return }
        let rows = rejects.indices.map { row in "(" + (1...11).map { "$\(row * 11 + $0)" }.joined(separator: ", ") + ")" }
        try store.connection.affected("""
            INSERT INTO importer_reject ("run", "created_at", "source", "line", "column", "record", "path", "entity", "attribute", "reason", "value")
            VALUES \(rows.joined(separator: ", "))
            """, rejects.flatMap { reject, timestamp -> [Value] in [
            .integer(run), .text(timestamp), Self.text(reject.location.source), .integer(Int64(reject.location.line)),
            .integer(Int64(reject.location.column)), reject.location.recordIndex.map { .integer(Int64($0)) } ?? .null,
            reject.location.path.map(Self.text) ?? .null, .text(reject.entity), reject.attribute.map(Value.text) ?? .null,
            Self.text(reject.reason), reject.rawValue.map(Self.text) ?? .null,
        ] })
    }

    /// `text` as PostgreSQL can hold it: a NUL character (a reject's raw value may hold one) is
    /// kept as the visible escape `\u0000`.
    static func text(_ text: String) -> Value {
        .text(text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\\u0000") : text)
    }

    func tag(run: Int64, transaction: Int64) throws {
        try store.connection.affected(#"UPDATE importer_reject SET "transaction_number" = $2 WHERE "run" = $1"#, [.integer(run), .integer(transaction)])
    }
}

extension PostgresStore {
    public func rejectRuns() throws -> [RejectRunSummary] {
        try mapErrors {
            try connection.rows("""
                SELECT "run", max("transaction_number"), min("created_at"), count(*), string_agg(DISTINCT "source", ',')
                FROM importer_reject GROUP BY "run" ORDER BY "run"
                """).map { row in
                RejectRunSummary(run: Self.int(row[0]), transactionNumber: row[1].isNull ? nil : Self.int(row[1]),
                                 createdAt: row[2].stringValue ?? "", count: Int(Self.int(row[3])),
                                 sources: (row[4].stringValue ?? "").split(separator: ",").map(String.init))
            }
        }
    }

    /// The rejects of a run (the latest when nil), in the order they were met.
    public func rejects(run: Int64?) throws -> (run: Int64?, rejects: [Reject]) {
        try mapErrors {
            let latest = try connection.scalar(#"SELECT max("run") FROM importer_reject"#)
            guard let number = run ?? (latest?.isNull == false ? latest.map(Self.int) : nil) else { return (nil, []) }
            let rejects = try connection.rows("""
                SELECT "source", "line", "column", "record", "path", "entity", "attribute", "reason", "value" FROM importer_reject
                WHERE "run" = $1 ORDER BY "id"
                """, [.integer(number)]).map { row in
                Reject(location: SourceLocation(source: row[0].stringValue ?? "", line: Int(Self.int(row[1])), column: Int(Self.int(row[2])),
                                                recordIndex: row[3].isNull ? nil : Int(Self.int(row[3])), path: row[4].stringValue),
                       entity: row[5].stringValue ?? "", attribute: row[6].stringValue, reason: row[7].stringValue ?? "", rawValue: row[8].stringValue)
            }
            return (number, rejects)
        }
    }

    /// Deletes the rejects of one run, or all; returns how many (inside a write transaction).
    public func clearRejects(run: Int64?) throws -> Int {
        try mapErrors {
            guard let run else { return try connection.affected("DELETE FROM importer_reject") }
            return try connection.affected(#"DELETE FROM importer_reject WHERE "run" = $1"#, [.integer(run)])
        }
    }
}
