import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// One import run: everything commits together, or nothing does.
@Suite struct ImportSessionTests {
    private func session(_ path: String, configure: (inout ImportOptions) -> Void = { _ in }) throws -> ImportSession {
        var options = ImportOptions(author: "t", context: "test")
        configure(&options)
        return ImportSession(store: try Store(path: path), model: FireballModel.model, options: options)
    }

    private let feed = [FeedInput(path: sample("fireball-2026.json"), mapping: FireballModel.apiFeed)]

    @Test func aDryRunReportsItsCountsAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let before = try sha256(path)
        var seen: ImportResult?
        let session = try session(path) { $0.dryRun = true; $0.sync = true }
        session.beforeCommit = { result, _ in seen = result }
        let result = try session.run(feed)
        #expect(result.totals == ChangeCounts(inserted: 3, updated: 3, deleted: 2, unchanged: 5, rekeyed: 1))
        #expect(seen?.transactionNumber == 2)
        #expect(try sha256(path) == before)
        #expect(try Store(path: path).lastTransactionNumber() == 1)
    }

    @Test func aRaisedCancellationRollsBackWithItsSignal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let before = try fireballRows(path)
        let session = try session(path)
        let flag = CancellationFlag()
        flag.raise(SIGTERM)
        session.cancellation = flag
        #expect(throws: ImportError.self) { try session.run(feed) }
        do {
            _ = try session.run(feed)
        } catch ImportError.interrupted(let signal) {
            #expect(signal == SIGTERM)
        }
        #expect(try fireballRows(path) == before)
        #expect(ExitStatus.forError(ImportError.interrupted(signal: SIGTERM)) == .terminated)
    }

    @Test func tooManyRejectsImportNothingAndKeepTheFirstOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let session = try session(path)
        do {
            _ = try session.run([FeedInput(path: sample("malformed/bad-number.json"), mapping: FireballModel.apiFeed)])
            Issue.record("expected too many rejects")
        } catch ImportError.tooManyRejects(let count, let limit, let rejects) {
            #expect(count == 1 && limit == 0)
            #expect(rejects.first?.attribute == "impact_energy")
        }
        #expect(try Store(path: path).entities.isEmpty)
        #expect(try Store(path: path).read { try $0.rejectRuns() }.isEmpty)
    }
}
