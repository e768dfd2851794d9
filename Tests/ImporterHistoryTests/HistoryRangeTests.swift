import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// `HistoryRange.resolve`: where a history read starts (beginning, token, date, consumer) and ends
/// (the head, a token, a limit).
@Suite struct HistoryRangeTests {
    /// A store with three transactions: the 2024 sample, the 2026 snapshot, the 2024 sample again.
    static func store(_ directory: TemporaryDirectory) throws -> Store {
        let path = directory.path("s.sqlite")
        for feed in ["fireball-2024.json", "fireball-2026.json", "fireball-2024.json"] {
            try importFeeds([sample(feed)], into: path, sync: true)
        }
        return try Store(path: path)
    }

    /// `HistoryRange.resolve` in a read transaction of `store`.
    static func resolve(_ start: HistoryRange.Start, in store: Store, through: String? = nil, limit: Int? = nil) throws -> HistoryRange {
        try store.read { try HistoryRange.resolve(start, storeID: store.storeID, in: $0, through: through, limit: limit) }
    }

    @Test func startsAtTheBeginningAfterATokenOrSinceADate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        #expect(try Self.resolve(.beginning, in: store) == HistoryRange(after: 0, through: 3))
        #expect(try Self.resolve(.afterToken(store.token(1).description), in: store) == HistoryRange(after: 1, through: 3))
        #expect(try Self.resolve(.since(timestamp: "2000-01-01T00:00:00.000Z"), in: store) == HistoryRange(after: 0, through: 3))
        #expect(try Self.resolve(.since(timestamp: "2999-01-01T00:00:00.000Z"), in: store) == HistoryRange(after: 3, through: 3))
    }

    @Test func endsAtATokenOrALimitButNeverBeforeItStarts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        #expect(try Self.resolve(.beginning, in: store, through: store.token(2).description) == HistoryRange(after: 0, through: 2))
        #expect(try Self.resolve(.beginning, in: store, limit: 1) == HistoryRange(after: 0, through: 1))
        #expect(try Self.resolve(.afterToken(store.token(3).description), in: store, through: store.token(1).description) == HistoryRange(after: 3, through: 3))
    }

    @Test func aConsumerStartsAtItsTokenThroughItsFilter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let consumer = Consumer(name: "mailer", kind: .external, tokenNumber: 2, attributes: ["energy"])
        try store.write { try $0.addConsumer(consumer) }
        #expect(try Self.resolve(.consumer("mailer"), in: store) == HistoryRange(after: 2, through: 3, filter: consumer.filter))
        #expect(throws: HistoryError.self) { try Self.resolve(.consumer("nobody"), in: store) }
    }
}
