import ImporterTestSupport
import Dispatch
import Foundation
import ImporterModel
@testable import ImporterStorePostgres
import PostgresTestSupport
import Testing

/// The one sync→async bridge (`BlockingConnection.blocking`, `CallingThreadExecutor`) and the
/// requests made through it: one statement per `execute` on the extended protocol, counts, rows.
@Suite struct BlockingBridgeTests {
    private struct Refused: Error {}

    /// The task's jobs, before and after each suspension, run on the thread that waits for it.
    @Test func theTaskRunsOnTheWaitingThreadAcrossSuspensions() throws {
        let caller = pthread_self()
        let threads = try BlockingConnection.blocking { () async -> [Bool] in
            var onCaller = [pthread_equal(pthread_self(), caller) != 0]
            await Task.yield()
            onCaller.append(pthread_equal(pthread_self(), caller) != 0)
            let resumedFromElsewhere = await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { continuation.resume(returning: 41) }
            }
            onCaller.append(pthread_equal(pthread_self(), caller) != 0 && resumedFromElsewhere == 41)
            return onCaller
        }
        #expect(threads == [true, true, true])
    }

    @Test func anErrorOfTheTaskIsThrownToTheCaller() {
        #expect(throws: Refused.self) { try BlockingConnection.blocking { () async throws -> Int in throw Refused() } }
    }

    private static func connect() throws -> BlockingConnection {
        try BlockingConnection.connect(to: try PostgresLocation(parsing: try PostgresTestCluster.start().newStoreURL()))
    }

    /// A statement whose body holds semicolons is one statement; two statements in one string are
    /// refused (the extended protocol), and the connection stays usable.
    @Test func executeSendsOneStatement() throws {
        let connection = try Self.connect()
        defer { connection.close() }
        try connection.execute("""
            CREATE FUNCTION pg_temp.twice(n bigint) RETURNS bigint LANGUAGE plpgsql AS $$
            BEGIN
              RETURN n * 2;
            END $$
            """)
        #expect(try connection.integer("SELECT pg_temp.twice(21)") == 42)
        do {
            try connection.execute("SELECT 1; SELECT 2")
            Issue.record("two statements in one string ran")
        } catch {
            #expect(error.sqlState == "42601" && error.sql == "SELECT 1; SELECT 2", "\(error)")
        }
        #expect(try connection.integer("SELECT 41 + 1") == 42)
    }

    @Test func countsRowsAndColumnsComeBack() throws {
        let connection = try Self.connect()
        defer { connection.close() }
        try connection.execute("CREATE TEMP TABLE t (n bigint, s text)")
        #expect(try connection.affected("INSERT INTO t SELECT g, 'r' || g FROM generate_series(1, $1::int) g", [.integer(25)]) == 25)
        #expect(try connection.affected("UPDATE t SET s = $1 WHERE n > 20", [.text("x")]) == 5)
        #expect(try connection.affected("DELETE FROM t WHERE s = 'none'") == 0)
        #expect(try connection.rows("SELECT n, s FROM t WHERE n <= 2 ORDER BY n") == [[.integer(1), .text("r1")], [.integer(2), .text("r2")]])
        let result = try connection.rowsWithColumns("SELECT n AS number, s FROM t WHERE false")
        #expect(result.columns == ["number", "s"] && result.rows.isEmpty)
        #expect(try connection.scalar("SELECT NULL::bigint") == .null)
    }

    /// A request whose answer never comes (postgres-nio drops a query written while its channel
    /// is torn down) ends as a lost connection as soon as the server ends the session, and every
    /// later request fails at once.
    @Test(.timeLimit(.minutes(1))) func aRequestNeverAnsweredEndsWhenTheSessionEnds() throws {
        let cluster = try PostgresTestCluster.start()
        let connection = try BlockingConnection.connect(to: try PostgresLocation(parsing: try cluster.newStoreURL()))
        defer { connection.close() }
        let pid = try connection.integer("SELECT pg_backend_pid()")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            _ = try? cluster.psql("SELECT pg_terminate_backend(\(pid))")
        }
        do {
            _ = try connection.request("SELECT never_answered()") { () async -> Int in
                await withUnsafeContinuation { (_: UnsafeContinuation<Int, Never>) in }
            }
            Issue.record("the request returned")
        } catch {
            #expect(error.isConnectionFailure && error.sql == "SELECT never_answered()", "\(error)")
        }
        #expect(connection.isLost)
        #expect(throws: PostgresFailure.self) { try connection.integer("SELECT 1") }
    }
}
