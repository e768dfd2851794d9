import ImporterTestSupport
import Foundation
import ImporterKit
import PostgresTestSupport
import Testing

/// The PostgreSQL backend's synchronous calls need no thread of Swift's cooperative pool: a COPY
/// (an async API waited for by the calling thread) completes while every thread of the pool is
/// blocked, as the threads of tests running in one process can all be. (It once waited for a pool
/// thread: with the pool's threads blocked, one by a test whose `DROP DATABASE` waited for the
/// server to finish that COPY, the test process hung.)
@Suite struct PostgresBlockingCallTests {
    private final class Outcome: @unchecked Sendable {
        var result: Result<ImportResult, any Error>?
    }

    @Test func anInProcessImportCompletesWhileTheCooperativePoolIsBlocked() throws {
        let url = try PostgresTestCluster.start().newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = directory.path("feed.json")
        try Data(CrashTests.largeFeed(count: 2_000, offset: 0).utf8).write(to: URL(fileURLWithPath: feed))
        var model = FireballModel.model
        model.views = []
        let importModel = model

        let release = DispatchSemaphore(value: 0)
        let width = ProcessInfo.processInfo.activeProcessorCount + 1
        for _ in 0..<width { Task.detached { release.wait() } }
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var options = ImportOptions(author: "t", context: "test")
            options.replayViews = false
            outcome.result = Result {
                let store = try Store.open(url)
                return try ImportSession(store: store, model: importModel, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
            }
            finished.signal()
        }
        let inTime = finished.wait(timeout: .now() + 30) == .success
        for _ in 0..<width { release.signal() }
        #expect(inTime, "the import waited for a thread of the blocked cooperative pool")
        if !inTime { finished.wait() }
        let result = try #require(try outcome.result?.get())
        #expect(result.totals.inserted == 2_000)
        let database = PostgresTestCluster.database(of: url)
        #expect(try PostgresTestCluster.start().psql("SELECT count(*) FROM fireball", database: database) == "2000")
    }
}
