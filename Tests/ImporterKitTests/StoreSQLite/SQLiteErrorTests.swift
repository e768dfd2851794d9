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
        let connection = try Connection(path: path, create: true)
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
}
