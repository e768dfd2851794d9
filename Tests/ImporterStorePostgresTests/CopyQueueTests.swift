import ImporterTestSupport
import Foundation
import ImporterModel
@testable import ImporterStorePostgres
import PostgresTestSupport
import Testing

/// Batches are COPied in chunks on a task of their own (`CopyQueue`): the next request sees every
/// row sent before it, an error in the data reaches the caller (never a hang), and the connection
/// is usable after a rollback.
@Suite(.timeLimit(.minutes(2))) struct CopyQueueTests {
    private static func text(_ rows: ClosedRange<Int>, bad: Int? = nil) -> CopyText {
        var text = CopyText()
        for n in rows { text.appendRow([n == bad ? .text("not a number") : .integer(Int64(n)), .text("row \(n)")]) }
        return text
    }

    private static func connect(_ cluster: PostgresTestCluster) throws -> BlockingConnection {
        try BlockingConnection.connect(to: try PostgresLocation(parsing: try cluster.newStoreURL()))
    }

    @Test func theNextRequestSeesEveryRowSentBeforeIt() throws {
        let connection = try Self.connect(try PostgresTestCluster.start())
        defer { connection.close() }
        for sql in ["BEGIN", "CREATE TEMP TABLE a (n bigint, s text)", "CREATE TEMP TABLE b (n bigint, s text)"] { try connection.execute(sql) }
        for start in stride(from: 1, through: 9_001, by: 1_000) {
            try connection.copy(into: "a", columns: ["n", "s"], data: Self.text(start...(start + 999)).buffer)
        }
        #expect(try connection.integer("SELECT count(*) FROM a") == 10_000)
        #expect(try connection.integer("SELECT sum(n) FROM a") == 50_005_000)
        // Alternating tables: each switch queues the chunk gathered for the other.
        for start in [1, 11, 21] {
            try connection.copy(into: "a", columns: ["n", "s"], data: Self.text(start...(start + 9)).buffer)
            try connection.copy(into: "b", columns: ["n", "s"], data: Self.text(start...(start + 9)).buffer)
        }
        #expect(try connection.integer("SELECT count(*) FROM a") == 10_030)
        #expect(try connection.integer("SELECT count(*) FROM b") == 30)
        try connection.execute("COMMIT")
    }

    /// Many chunks, one of them refused while the next ones are queued: the error comes once,
    /// the queued chunks are dropped, and nothing waits forever.
    @Test func aRefusedChunkAmongManyStopsTheQueue() throws {
        let blocking = try Self.connect(try PostgresTestCluster.start())
        defer { blocking.close() }
        for sql in ["BEGIN", "CREATE TEMP TABLE d (n bigint, s text)"] { try blocking.execute(sql) }
        let queue = CopyQueue(connection: blocking.connection, logger: blocking.logger, chunkBytes: 64 << 10)
        for start in stride(from: 1, through: 19_001, by: 1_000) {
            try queue.send(into: "d", columns: ["n", "s"], data: Self.text(start...(start + 999)).buffer)
        }
        try queue.finish()
        #expect(try blocking.integer("SELECT count(*) FROM d") == 20_000)
        var caught: CopyQueue.Failure?
        do {
            for start in stride(from: 1, through: 199_001, by: 1_000) {
                try queue.send(into: "d", columns: ["n", "s"], data: Self.text(start...(start + 999), bad: 3_500).buffer)
            }
            try queue.finish()
        } catch {
            caught = error
        }
        #expect(caught?.table == "d" && ImporterStorePostgres.PostgresFailure(caught?.error ?? CancellationError(), sql: nil).sqlState == "22P02")
        #expect(throws: Never.self) { try queue.finish() }
        #expect(queue.discard(timeout: 5))
        blocking.rollback()
        #expect(try blocking.integer("SELECT 41 + 1") == 42)
    }

    /// Discarding an idle queue is harmless; once discarded for a close, nothing is copied any
    /// more and every call says the connection is closing.
    @Test func aQueueDiscardedForACloseRefusesEverything() throws {
        let blocking = try Self.connect(try PostgresTestCluster.start())
        defer { blocking.close() }
        try blocking.execute("CREATE TEMP TABLE e (n bigint, s text)")
        let queue = CopyQueue(connection: blocking.connection, logger: blocking.logger, chunkBytes: 1 << 10)
        #expect(queue.discard(timeout: 1))
        try queue.send(into: "e", columns: ["n", "s"], data: Self.text(1...100).buffer)
        try queue.finish()
        #expect(try blocking.integer("SELECT count(*) FROM e") == 100)
        try queue.send(into: "e", columns: ["n", "s"], data: Self.text(101...110).buffer)
        #expect(queue.discard(timeout: 5, closing: true))
        #expect(throws: CopyQueue.Failure.self) { try queue.finish() }
        #expect(throws: CopyQueue.Failure.self) { try queue.send(into: "e", columns: ["n", "s"], data: Self.text(1...1).buffer) }
        #expect(try blocking.integer("SELECT count(*) FROM e") <= 110)
    }

    @Test func anErrorInTheDataReachesTheCallerAndARollbackRecovers() throws {
        let connection = try Self.connect(try PostgresTestCluster.start())
        defer { connection.close() }
        for sql in ["BEGIN", "CREATE TABLE c (n bigint, s text)"] { try connection.execute(sql) }
        var caught: PostgresFailure?
        do {
            // The bad row is in the second buffer; the error comes with a later copy or the next request.
            for start in stride(from: 1, through: 50_001, by: 10_000) {
                try connection.copy(into: "c", columns: ["n", "s"], data: Self.text(start...(start + 9_999), bad: 15_000).buffer)
            }
            _ = try connection.integer("SELECT count(*) FROM c")
        } catch {
            caught = error
        }
        #expect(caught?.sqlState == "22P02", "\(String(describing: caught))")
        #expect(caught?.sql == "COPY c FROM STDIN")
        connection.rollback()
        #expect(try connection.integer("SELECT 41 + 1") == 42)
        #expect(try connection.integer("SELECT count(*) FROM pg_tables WHERE tablename = 'c'") == 0, "rolled back")
    }
}
