import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Acknowledgements on a PostgreSQL store are a compare-and-set on the consumer's token: processes
/// reading and acknowledging the same consumer at once never lose a change nor deliver one twice.
@Suite struct PostgresConcurrentAckTests {
    /// Changes delivered by the acknowledgements that succeeded, from several workers at once.
    private final class Delivered: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        private var refusals = 0
        private var unexpected: [String] = []
        func add(_ new: [String]) { lock.withLock { lines += new } }
        func refused() { lock.withLock { refusals += 1 } }
        func failed(_ message: String) { lock.withLock { unexpected.append(message) } }
        var values: (lines: [String], refusals: Int, unexpected: [String]) { lock.withLock { (lines, refusals, unexpected) } }
    }

    /// Twelve transactions pending for `mailer`; four processes each repeat `history --consumer
    /// mailer --ack --limit 1` until nothing is pending. The changes printed by the runs that
    /// acknowledged (exit 0) are every pending change exactly once; a run that lost the race exits
    /// 75 ("moved") and its output is not acknowledged.
    @Test func concurrentAcknowledgementsDeliverEachChangeOnce() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for round in 0..<12 {
            let feed = directory.path("feed-\(round).json")
            try Data(CrashTests.largeFeed(count: 40, offset: round * 3).utf8).write(to: URL(fileURLWithPath: feed))
            let run = try importer(["run", "--no-replay", "--sync", "--max-delete", "100%", "--store", url, feed])
            try #require(run.status == 0, "\(run.stderr)")
            if round == 0 { try #require(try importer(["consumers", "add", "mailer", "--from", "beginning", "--store", url]).status == 0) }
        }
        let pending = try importer(["history", "--consumer", "mailer", "--format", "ndjson", "--store", url])
        let expected = pending.stdout.split(separator: "\n").map(String.init)
        try #require(pending.status == 0 && expected.count > 12, "\(pending.stderr)")

        let delivered = Delivered()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<60 {
                guard let ack = try? importer(["history", "--consumer", "mailer", "--ack", "--limit", "1", "--format", "ndjson", "--wait", "30", "--store", url]) else {
                    delivered.failed("could not run importer")
                    return
                }
                if ack.status == 75 && ack.stderr.contains("moved") {
                    delivered.refused()
                    continue
                }
                guard ack.status == 0 else { delivered.failed("\(ack.status): \(ack.stderr)"); return }
                let lines = ack.stdout.split(separator: "\n").map(String.init)
                if lines.isEmpty { return }
                delivered.add(lines)
            }
        }
        let outcome = delivered.values
        #expect(outcome.unexpected.isEmpty, "\(outcome.unexpected)")
        #expect(outcome.lines.count == expected.count, "\(outcome.lines.count) delivered of \(expected.count) pending")
        #expect(outcome.lines.sorted() == expected.sorted(), "each pending change is delivered exactly once")
        let after = try importer(["history", "--consumer", "mailer", "--format", "ndjson", "--store", url])
        #expect(after.status == 0 && after.stdout.isEmpty, "nothing is left pending: \(after.stdout.prefix(300))")
        print("concurrent acknowledgements: \(expected.count) changes in 12 transactions, 4 processes, \(outcome.refusals) lost compare-and-sets")
    }
}
