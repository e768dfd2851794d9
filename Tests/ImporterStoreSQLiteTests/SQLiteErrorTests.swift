import ImporterTestSupport
import Foundation
@testable import ImporterStoreSQLite
import ImporterStore
import Testing

/// SQLite's errors reach the store seam with their structure: backend, extended code, message,
/// statement and kind, and the text the backend describes them with.
@Suite struct SQLiteErrorTests {
    func failure(_ statements: [String]) throws -> DatabaseError? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-error-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try SQLiteConnection(path: path, create: true)
        do {
            for statement in statements { try connection.execute(statement) }
        } catch {
            return error.databaseError
        }
        return nil
    }

    @Test func aUniqueViolationIsAConstraintWithItsCodeAndStatement() throws {
        let insert = "INSERT INTO t VALUES (1)"
        let error = try #require(try failure(["CREATE TABLE t (k INTEGER UNIQUE)", insert, insert]))
        #expect(error.backend == .sqlite)
        #expect(error.code == "2067") // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.kind == .constraint)
        #expect(error.sql == insert)
        #expect(error.message.contains("UNIQUE constraint failed: t.k"))
        #expect(error.description.hasPrefix("SQLite error 2067: UNIQUE constraint failed"))
        #expect(!error.isIOFailure)
    }

    @Test func anUnknownTableIsOther() throws {
        let error = try #require(try failure(["SELECT * FROM missing"]))
        #expect(error.kind == .other && error.code == "1" && error.sql == "SELECT * FROM missing")
    }

    /// A writer that opened a store which was then removed (a failed first run removes the store it
    /// created) finds out once it holds the lock, and writes nothing to the unlinked file.
    @Test func aWriterWhoseStoreWasRemovedMeanwhileIsBusy() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("removed-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-writer"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(throws: StoreError.self) { try store.write { TransactionCompletion<Void>.commit(()) } }
        do {
            try store.write { TransactionCompletion<Void>.commit(()) }
        } catch let error as StoreError {
            guard case .locked = error else { Issue.record("expected busy, got \(error)"); return }
        }
    }
}
