import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Storing an import's rejects in PostgreSQL: many in one INSERT (listing, tagging and clearing
/// them are `SQLBackend`'s).
struct PostgresRejects {
    let store: PostgresStore

    /// Stores `rejects` (each with the time it was met) under `run`, in one statement.
    func insert(_ rejects: [(Reject, String)], run: Int64) throws {
        guard !rejects.isEmpty else { return }
        let rows = rejects.indices.map { row in "(" + (1...11).map { "$\(row * 11 + $0)" }.joined(separator: ", ") + ")" }
        try store.connection.affected("""
            INSERT INTO importer_reject (\(PostgresStore.rejectColumns)) VALUES \(rows.joined(separator: ", "))
            """, rejects.flatMap { reject, timestamp in PostgresStore.rejectRow(reject, run: run, at: timestamp, text: Self.text) })
    }

    /// `text` as PostgreSQL can hold it: a NUL character (a reject's raw value may hold one) is
    /// kept as the visible escape `\u0000`.
    static func text(_ text: String) -> Value {
        .text(text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\\u0000") : text)
    }
}
