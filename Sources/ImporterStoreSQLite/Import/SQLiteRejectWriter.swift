import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Storing an import's rejects in SQLite: one prepared INSERT reused for each (listing, tagging
/// and clearing them are `SQLBackend`'s).
struct SQLiteRejectWriter {
    let run: Int64
    private let insert: SQLiteStatement

    /// Allocates the next run number and prepares the insert, inside the run's write transaction.
    init(store: SQLiteStore) throws {
        run = try store.allocateRejectRun()
        insert = try store.connection.prepare("""
            INSERT INTO importer_reject (\(SQLiteStore.rejectColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
    }

    func insert(_ reject: Reject, at timestamp: String) throws {
        try insert.execute(SQLiteStore.rejectRow(reject, run: run, at: timestamp))
    }
}
