import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// `--sync` never empties a store on a suspect feed: an empty feed, or more deletes than the bound.
@Suite struct SyncGuardTests {
    private func row(_ date: String) -> String { #"["\#(date)","1.0","0.1",null,null,null,null,null,null]"# }

    /// A store holding `count` fireballs, one a day from 2020-01-01.
    private func store(_ directory: TemporaryDirectory, count: Int) throws -> (path: String, dates: [String]) {
        let dates = (0..<count).map { String(format: "2020-01-%02d 00:00:00", $0 + 1) }
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("all.json", fireballFeed(dates.map(row)))], into: path)
        return (path, dates)
    }

    @Test func anEmptyFeedIsRefusedAndTheStoreIsUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, _) = try store(directory, count: 10)
        let before = try sha256(path)
        let result = try importFeeds([sample("fireball-empty.json")], into: path, sync: true)
        #expect(result.transactionNumber == nil)
        #expect(result.refusals.count == 2)
        #expect(result.refusals[0] == .emptyFeed(source: sample("fireball-empty.json"), entity: "Fireball", held: 10))
        #expect(result.refusals[1] == .tooManyDeletes(entity: "Fireball", count: 10, held: 10, percent: 100, bound: .percent(50), limit: 5))
        #expect(result.refusals[1].description.contains("would delete 10 of the 10 stored Fireball records (100%)"))
        #expect(result.totals.deleted == 10)
        #expect(try fireballRows(path).count == 10)
        #expect(try sha256(path) == before)
    }

    @Test func anEmptyFeedBesideAFullOneIsRefusedToo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, dates) = try store(directory, count: 10)
        let most = try directory.write("most.json", fireballFeed(dates.prefix(9).map(row)))
        let result = try importFeeds([most, sample("fireball-empty.json")], into: path, sync: true)
        #expect(result.refusals.count == 1)
        #expect(try fireballRows(path).count == 10)
    }

    @Test func allowEmptyWithAFullBoundDeletesEverything() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, _) = try store(directory, count: 10)
        let allowEmptyOnly = try importFeeds([sample("fireball-empty.json")], into: path, sync: true) { $0.allowEmpty = true }
        #expect(allowEmptyOnly.refusals.count == 1)
        #expect(allowEmptyOnly.refusals[0].message { if case .deleteLimit(let bound) = $0 { "--max-delete \(bound)" } else { "" } }.contains("--max-delete 50% allows (5)"))
        let result = try importFeeds([sample("fireball-empty.json")], into: path, sync: true) {
            $0.allowEmpty = true
            $0.maxDelete = .percent(100)
        }
        #expect(result.refusals.isEmpty)
        #expect(result.totals.deleted == 10)
        #expect(try fireballRows(path).isEmpty)
    }

    /// Deleting exactly the bound is allowed; one more is refused (counts and percentages).
    @Test(arguments: [(DeleteBound.count(3), 3, true), (.count(3), 4, false), (.percent(50), 5, true), (.percent(50), 6, false), (.percent(0), 1, false)])
    func theDeleteBoundIsInclusive(bound: DeleteBound, deleting: Int, allowed: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, dates) = try store(directory, count: 10)
        let kept = try directory.write("kept.json", fireballFeed(dates.dropFirst(deleting).map(row)))
        let result = try importFeeds([kept], into: path, sync: true) { $0.maxDelete = bound }
        #expect(result.refusals.isEmpty == allowed)
        #expect(result.totals.deleted == deleting)
        #expect(try fireballRows(path).count == (allowed ? 10 - deleting : 10))
    }

    @Test func anEmptyFeedIntoAnEmptyStoreIsNotASuspect() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let result = try importFeeds([sample("fireball-empty.json")], into: directory.path("s.sqlite"), sync: true)
        #expect(result.refusals.isEmpty)
    }

    @Test func withoutSyncNothingIsGuarded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, _) = try store(directory, count: 10)
        #expect(try importFeeds([sample("fireball-empty.json")], into: path).refusals.isEmpty)
    }

    @Test func deleteBoundsParse() {
        #expect(DeleteBound(parsing: "500") == .count(500))
        #expect(DeleteBound(parsing: "50%") == .percent(50))
        #expect(DeleteBound(parsing: "100%") == .percent(100))
        #expect(DeleteBound(parsing: "12.5%") == .percent(12.5))
        for bad in ["", "-1", "101%", "x", "%", "5 %"] { #expect(DeleteBound(parsing: bad) == nil, "\(bad)") }
        #expect(DeleteBound.percent(50).limit(stored: 973) == 486)
        #expect(DeleteBound.count(7).limit(stored: 3) == 7)
    }
}
