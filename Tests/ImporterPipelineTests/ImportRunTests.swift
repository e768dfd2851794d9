import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// `ImportRun`: when the reports are written, a dry run's temporary store, refusals.
@Suite struct ImportRunTests {
    static func run(_ feed: String, options: ImportOptions, storeExists: Bool = true) -> ImportRun {
        ImportRun(model: FireballModel.model, inputs: [FeedInput(path: feed, mapping: FireballModel.apiFeed)], options: options, storeExists: storeExists)
    }

    @Test func aRealRunReportsOnceCommitted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        var reported: [Int64?] = []
        var imported = 0
        var headWhenReported: Int64?
        let run = Self.run(sample("fireball-2024.json"), options: ImportOptions(author: "a"))
        run.onImported = { imported += 1 }
        let result = try run.run(open: { temporary in
            #expect(temporary == nil)
            return try Store(path: path)
        }, reporter: {
            { (result: ImportResult, _: Store, snapshot: StoreSnapshot) throws in
                reported.append(result.transactionNumber)
                headWhenReported = try snapshot.history.lastTransactionNumber()
            }
        })
        #expect(result.transactionNumber == 1 && reported == [1] && imported == 1 && headWhenReported == 1)
    }

    @Test func aDryRunOnAMissingStoreWorksOnATemporaryOneAndRemovesIt() throws {
        var options = ImportOptions(author: "a")
        options.dryRun = true
        var temporaryPath: String?
        var reportedRecords: Int?
        let result = try Self.run(sample("fireball-2024.json"), options: options, storeExists: false).run(open: { temporary in
            temporaryPath = temporary
            return try Store(path: try #require(temporary))
        }, reporter: {
            { (_: ImportResult, store: Store, snapshot: StoreSnapshot) throws in
                // Inside the transaction, before the rollback.
                reportedRecords = try snapshot.records.recordCount(of: try #require(store.entity(named: "Fireball")))
            }
        })
        #expect(result.totals.inserted == 10 && reportedRecords == 10)
        let path = try #require(temporaryPath)
        #expect(path.contains("importer-dry-run-") && !FileManager.default.fileExists(atPath: path))
    }

    @Test func aRefusedRunIsReportedThenFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        var reports = 0
        let run = Self.run(sample("fireball-empty.json"), options: ImportOptions(author: "a", sync: true))
        let error = #expect(throws: ImportError.self) {
            _ = try run.run(open: { _ in try Store(path: path) }, reporter: { { _, _, _ in reports += 1 } })
        }
        guard case .refused(let reasons)? = error else { Issue.record("not refused: \(String(describing: error))"); return }
        #expect(reasons.contains { if case .emptyFeed = $0 { true } else { false } })
        #expect(reports == 1)
        #expect(try fireballRows(path).count == 10)
    }

    @Test func aReporterThatCannotBeMadeFailsTheRunBeforeAnythingIsImported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        struct Unwritable: Error {}
        #expect(throws: Unwritable.self) {
            _ = try Self.run(sample("fireball-2024.json"), options: ImportOptions(author: "a")).run(open: { _ in try Store(path: path) }, reporter: { throw Unwritable() })
        }
        #expect(try Store(path: path).lastTransactionNumber() == 0)
    }
}
