import ImporterTestSupport
import Foundation
import ImporterStore
@testable import ImporterStoreSQLite
import Testing

/// A read transaction cannot write, even through the connection its snapshot sits on; the store
/// writes again once the read has ended.
@Suite struct ReadOnlySnapshotTests {
    @Test func aReadRefusesWritesAndTheNextWriteWorks() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("read-only-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-writer"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
        try store.write { TransactionCompletion<Void>.commit(try store.connection.execute("CREATE TABLE t (v INTEGER)")) }
        #expect(throws: (any Error).self) {
            try store.read { try store.connection.execute("INSERT INTO t VALUES (1)") }
        }
        try store.write { TransactionCompletion<Void>.commit(try store.connection.execute("INSERT INTO t VALUES (2)")) }
        #expect(try store.read { try store.connection.integer("SELECT sum(v) FROM t") } == 2)
    }
}
