import ImporterTestSupport
import Foundation
@testable import ImporterKit
import ImporterPipeline
@testable import ImporterModel
@testable import ImporterStore
import PostgresTestSupport
import Testing

/// The behaviour every store backend must share, run against both: SQLite in a temporary file and
/// PostgreSQL in a database of the tests' throwaway cluster. One suite, parameterised by backend.
///
/// Serialized: a PostgreSQL call blocks its thread on the connection's future (the synchronous
/// seam), so these tests occupy at most one of the test pool's threads at a time.
@Suite(.serialized) struct BackendConformanceTests {
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        func open(in directory: TemporaryDirectory) throws -> Store {
            switch self {
            case .sqlite: try Store.open(directory.path("s.sqlite"))
            case .postgres: try Store.open(try PostgresTestCluster.start().newStoreURL())
            }
        }
    }

    /// The built-in model: its key drift rule and its two views.
    static let model = FireballModel.model

    private func row(_ date: String, energy: String = "1.0", altitude: String = "null") -> String {
        #"["\#(date)","\#(energy)","0.1",null,null,null,null,\#(altitude),null]"#
    }

    private func run(_ store: Store, _ rows: [String], sync: Bool = false, batchSize: Int = 8192, in directory: TemporaryDirectory) throws -> ImportResult {
        let feed = try directory.write("feed-\(UUID().uuidString).json", fireballFeed(rows))
        var options = ImportOptions(author: "t", context: "test", sync: sync)
        options.batchSize = batchSize
        options.maxDelete = .percent(100)
        options.replayViews = false
        return try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
    }

    private func changes(_ store: Store, after: Int64 = 0) throws -> [Change] {
        var result: [Change] = []
        try store.read { (snapshot: StoreSnapshot) throws in
            try snapshot.history.forEachChange(after: after, through: .max, filter: ChangeFilter(), limit: nil) { result.append($0) }
        }
        return result
    }

    @Test(arguments: Backend.allCases) func upsertsRecordHistoryAndSyncDeletes(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let first = try run(store, [row("2024-01-01 00:00:00"), row("2024-01-02 00:00:00"), row("2024-01-03 00:00:00"),
                                    row("2024-01-01 00:00:00", energy: "9.5")], in: directory)
        #expect(first.totals.inserted == 3 && first.totals.duplicates == 1)
        #expect(try changes(store).first { $0.key.first?.1 == .text("2024-01-01 00:00:00") }?.value("energy") == .real(9.5))
        let again = try run(store, [row("2024-01-01 00:00:00", energy: "9.5"), row("2024-01-02 00:00:00"), row("2024-01-03 00:00:00")], in: directory)
        #expect(again.transactionNumber == nil && again.totals.unchanged == 3)
        let sync = try run(store, [row("2024-01-01 00:00:00", energy: "9.5", altitude: "30"), row("2024-01-03 00:00:00"), row("2024-01-04 00:00:00")],
                           sync: true, in: directory)
        #expect(sync.totals.inserted == 1 && sync.totals.updated == 1 && sync.totals.deleted == 1 && sync.totals.unchanged == 1)
        let second = try changes(store, after: 1)
        #expect(second.map(\.type) == [.update, .delete, .insert])
        #expect(second[0].changed == [AttributeChange(attribute: "altitude", old: .null, new: .real(30))])
        #expect(second[1].tombstone.first?.1 == .text("2024-01-02 00:00:00"))
        #expect(try store.read { try $0.records.recordCount(of: Self.model.entities[0]) } == 3)
        let transactions = try store.read { try $0.history.transactions(after: 0, through: .max, limit: nil) }
        #expect(transactions.map(\.number) == [1, 2] && transactions[1].totals.deleted == 1)
    }

    /// A first load whose keys repeat across batches: on PostgreSQL the first batch goes straight
    /// into the table and the rest is staged from the repeat on (`DirectKeys`); both backends give
    /// the same ids (first batch, then key), last values, insert changes and counts.
    @Test(arguments: Backend.allCases) func aFirstLoadWithKeysRepeatedAcrossBatches(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let day = { (d: Int) in "2024-01-0\(d) 00:00:00" }
        let feed = [row(day(2)), row(day(1)), /* batch 2 repeats day 1 */ row(day(3)), row(day(1), energy: "9.5"),
                    row(day(5)), row(day(4)), /* batch 4 repeats day 2 */ row(day(2), energy: "7.0"), row(day(6))]
        let first = try run(store, feed, batchSize: 2, in: directory)
        #expect(first.totals.inserted == 6 && first.totals.duplicates == 2 && first.totals.updated == 0 && first.totals.unchanged == 0)
        var records: [(Int64, Value, Value)] = []
        try store.read { (snapshot: StoreSnapshot) throws in
            try snapshot.records.forEachRecord(of: Self.model.entities[0]) { id, values in records.append((id, values[0], values[1])) }
        }
        // SQLite's upsert spends an id on each duplicate it meets (1, 2, 4, 5, 6, 8 here); PostgreSQL's are dense.
        #expect(records.map(\.0) == records.map(\.0).sorted() && Set(records.map(\.0)).count == 6)
        #expect(records.map(\.1) == (1...6).map { .text(day($0)) }, "ids in (first batch, key) order")
        #expect(records.map(\.2) == [.real(9.5), .real(7), .real(1), .real(1), .real(1), .real(1)], "the last occurrence's values")
        let inserts = try changes(store)
        #expect(inserts.map(\.type) == Array(repeating: .insert, count: 6) && inserts.map(\.recordID) == records.map(\.0))
        #expect(inserts.map { $0.value("energy") } == records.map { Optional($0.2) }, "each insert change holds the record's final values")
        let again = try run(store, feed, batchSize: 2, in: directory)
        #expect(again.transactionNumber == nil && again.totals.unchanged == 6 && again.totals.duplicates == 2)
    }

    private func records(_ store: Store) throws -> [[Value]] {
        var result: [[Value]] = []
        try store.read { try $0.records.forEachRecord(of: Self.model.entities[0]) { id, values in result.append([.integer(id)] + values) } }
        return result
    }

    /// Undo of a sync that updated, deleted and inserted more records than one chunk of the
    /// store's set-based undo (10,000): the records come back exactly, with one inverse change
    /// each; a deleted record whose key a new record took cannot come back.
    @Test(arguments: Backend.allCases) func undoRestoresPutsBackAndRefusesATakenKey(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let day = { (n: Int) in String(format: "2020-%02d-%02d %02d:%02d:00", 1 + n / 40_000 % 12, 1 + n / 1_440 % 28, n / 60 % 24, n % 60) }
        let count = 24_000
        _ = try run(store, (0..<count).map { row(day($0), energy: "\($0 % 50).5") }, in: directory)
        let loaded = try records(store)
        // The sync: 12,000 updated, 6,000 kept, 6,000 gone (deleted), 3 new.
        let sync = try run(store, (0..<18_000).map { row(day($0), energy: $0 < 12_000 ? "\($0 % 50).25" : "\($0 % 50).5") }
                           + (0..<3).map { row("2030-01-0\($0 + 1) 00:00:00") }, sync: true, in: directory)
        #expect(sync.totals.updated == 12_000 && sync.totals.deleted == 6_000 && sync.totals.inserted == 3)
        var undo = HistoryUndo(storeID: store.storeID, entities: store.entities)
        undo.author = "test"
        let outcome = try store.write { try undo.run(2, in: $0) }
        #expect(outcome.written == [3])
        #expect(try records(store) == loaded, "every record back, with its id and values")
        let inverse = try store.read { try $0.history.transactions(after: 2, through: 3, limit: nil) }
        #expect(inverse.first?.totals == ChangeCounts(inserted: 6_000, updated: 12_000, deleted: 3))
        let restored = try changes(store, after: 2).first { $0.type == .update }
        #expect(restored?.changed == [AttributeChange(attribute: "energy", old: .real(0.25), new: .real(0.5))])

        // Transaction 4 deletes a record with --sync of all but it; transaction 5 brings its key back as a new record.
        _ = try run(store, (1..<count).map { row(day($0), energy: "\($0 % 50).5") }, sync: true, in: directory)
        _ = try run(store, [row(day(0), energy: "3.0")], in: directory)
        let holder = try #require(try records(store).first { $0[1] == .text(day(0)) }?[0])
        #expect(throws: UndoError.keyTaken(entity: "Fireball", key: day(0), recordID: { if case .integer(let id) = holder { id } else { 0 } }())) {
            try store.write { try undo.run(4, in: $0) }
        }
    }

    /// `--cascade`: undoing a transaction and, first, a later one that changed the same record, in
    /// one store transaction; each inverse transaction puts back only its own deleted record.
    @Test(arguments: Backend.allCases) func aCascadeUndoesEachTransactionAlone(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let days = (1...4).map { "2024-02-0\($0) 00:00:00" }
        _ = try run(store, days.map { row($0) }, in: directory)
        let loaded = try records(store)
        // 2: day 1 updated, day 2 deleted; 3: day 1 updated again, day 3 deleted.
        _ = try run(store, [row(days[0], energy: "2.0"), row(days[2]), row(days[3])], sync: true, in: directory)
        _ = try run(store, [row(days[0], energy: "3.0"), row(days[3])], sync: true, in: directory)
        var undo = HistoryUndo(storeID: store.storeID, entities: store.entities)
        undo.cascade = true
        let outcome = try store.write { try undo.run(2, in: $0) }
        #expect(outcome.undone == [3, 2] && outcome.written == [4, 5])
        #expect(try records(store) == loaded)
        let inverses = try store.read { try $0.history.transactions(after: 3, through: 5, limit: nil) }
        #expect(inverses.map(\.totals) == [ChangeCounts(inserted: 1, updated: 1), ChangeCounts(inserted: 1, updated: 1)])
        let putBack = try changes(store, after: 3).filter { $0.type == .insert }.map { $0.key.first?.1 }
        #expect(putBack == [.text(days[2]), .text(days[1])], "transaction 4 puts back day 3, transaction 5 day 2")
    }

    @Test(arguments: Backend.allCases) func aRetimedRecordIsOneUpdateOfItsKey(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        _ = try run(store, [row("2024-01-01 00:00:00"), row("2024-03-01 00:00:00")], in: directory)
        let sync = try run(store, [row("2024-01-01 00:00:01", energy: "2.0"), row("2024-03-01 00:00:00")], sync: true, in: directory)
        #expect(sync.totals.rekeyed == 1 && sync.totals.updated == 1 && sync.totals.inserted == 0 && sync.totals.deleted == 0)
        let change = try #require(try changes(store, after: 1).first)
        #expect(change.recordID == 1 && change.isRekey)
        #expect(change.changed.map(\.attribute) == ["date", "energy"])
    }

    @Test(arguments: Backend.allCases) func consumersAcknowledgeByCompareAndSet(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let consumer = Consumer(name: "mailer", kind: .external, tokenNumber: 0, entities: ["Fireball"], createdAt: "2026-01-01T00:00:00Z")
        #expect(try store.write { try $0.consumers.insertConsumer(consumer) })
        #expect(try store.write { try $0.consumers.insertConsumer(consumer) } == false)
        #expect(try store.write { try $0.consumers.advanceConsumerToken("mailer", from: 0, to: 2, at: "now") })
        #expect(try store.write { try $0.consumers.advanceConsumerToken("mailer", from: 0, to: 3, at: "now") } == false)
        #expect(try store.read { try $0.consumers.consumer(named: "mailer") }?.tokenNumber == 2)
        #expect(try store.read { try $0.consumers.consumer(named: "mailer") }?.entities == ["Fireball"])
        #expect(try store.write { try $0.consumers.deleteConsumer(named: "mailer") })
        #expect(try store.read { try $0.consumers.consumers() }.isEmpty)
    }

    @Test(arguments: Backend.allCases) func purgeDropsOldHistoryOnly(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        _ = try run(store, [row("2024-01-01 00:00:00")], in: directory)
        _ = try run(store, [row("2024-01-02 00:00:00")], in: directory)
        let purged = try store.write { try $0.history.purgeHistory(through: 1) }
        #expect(purged.transactions == 1 && purged.changes == 1)
        #expect(try store.purgedThrough() == 1)
        #expect(try changes(store).map(\.transactionNumber) == [2])
        let counts = try store.read { try $0.rejects.statusCounts() }
        #expect(counts.records == [2] && counts.transactions == 1 && counts.changes == 1)
    }

    /// The shared bookkeeping SQL (`SQLBackend`) lists alike on both: consumers by kind then name
    /// in byte order, reject runs with their sources and rejects in the order they were met.
    @Test(arguments: Backend.allCases) func bookkeepingListsAlike(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        for name in ["beta", "Zulu", "alpha"] {
            let consumer = Consumer(name: name, kind: .external, tokenNumber: 0, entities: [], createdAt: "2026-01-01T00:00:00Z")
            #expect(try store.write { try $0.consumers.insertConsumer(consumer) })
        }
        #expect(try store.read { try $0.consumers.consumers() }.map(\.name) == ["Zulu", "alpha", "beta"])
        let feed = try directory.write("bad.json", fireballFeed([row("2024-01-01 00:00:00"), row("2024-01-02 00:00:00", energy: "much"),
                                                                row("2024-01-03 00:00:00", energy: "more")]))
        var options = ImportOptions(author: "t", context: "test", sync: false)
        options.maxRejects = 5
        options.replayViews = false
        let result = try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
        let runs = try store.read { try $0.rejects.rejectRuns() }
        #expect(runs.map(\.run) == [1] && runs.first?.count == 2 && runs.first?.transactionNumber == result.transactionNumber)
        #expect(runs.first?.sources == [feed])
        let (run, rejects) = try store.read { try $0.rejects.rejects(run: nil) }
        #expect(run == 1 && rejects.map(\.rawValue) == ["much", "more"])
        #expect(try store.write { try $0.rejects.clearRejects(run: 1) } == 2)
        #expect(try store.read { try $0.rejects.rejectRuns() }.isEmpty)
    }

    /// A URL feed's state is kept per URL, replaced by the next import of it, and rolls back with
    /// the transaction it was written in.
    @Test(arguments: Backend.allCases) func sourceStatesAreKeptPerURL(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let first = SourceState(url: "https://api.example.org/feed?api_key=REDACTED", etag: "\"v1\"", lastModified: nil, sha256: "ab12",
                                bytes: 120, status: 200, fetchedAt: "2026-11-27T00:00:00Z", transactionNumber: nil)
        try store.write { tx in try tx.sources.recordSourceState(first) }
        var second = first
        second.etag = "\"v2\""
        second.lastModified = "Wed, 01 Jan 2025 00:00:00 GMT"
        second.transactionNumber = 7
        try store.write { tx in try tx.sources.recordSourceState(second) }
        let other = SourceState(url: "https://a.example.org/x", etag: nil, lastModified: nil, sha256: nil, bytes: 0, status: 200,
                                fetchedAt: "2026-11-27T00:00:01Z", transactionNumber: 8)
        try store.inTransaction { tx in
            try tx.sources.recordSourceState(other)
            return .rollback(())
        }
        #expect(try store.read { snapshot in try snapshot.sources.sourceStates() } == [second])
        #expect(try store.read { snapshot in try snapshot.sources.sourceState(url: first.url) }?.etag == "\"v2\"")
        #expect(try store.read { snapshot in try snapshot.sources.sourceState(url: other.url) } == nil)
    }

    /// The largest and smallest stored values (`url-values`), alike on both: datetimes in their
    /// canonical text, numbers as numbers, null for an entity with no table yet or no value.
    @Test(arguments: Backend.allCases) func extremesOfAnAttribute(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let entity = try #require(Self.model.entity(named: FireballModel.apiFeed.entity))
        let date = try #require(entity.attribute(named: "date")), altitude = try #require(entity.attribute(named: "altitude"))
        #expect(try store.read { snapshot in try snapshot.records.extreme(.max, of: date, in: entity) } == .null, "no table yet")
        _ = try run(store, [row("2024-01-02 03:04:05", altitude: "\"35.5\""), row("2023-12-31 23:00:00", altitude: "\"7\""),
                            row("2024-01-01 00:00:00")], in: directory)
        #expect(try store.read { snapshot in try snapshot.records.extreme(.max, of: date, in: entity) } == .text("2024-01-02 03:04:05"))
        #expect(try store.read { snapshot in try snapshot.records.extreme(.min, of: date, in: entity) } == .text("2023-12-31 23:00:00"))
        #expect(try store.read { snapshot in try snapshot.records.extreme(.max, of: altitude, in: entity) }.doubleValue == 35.5)
        #expect(try store.read { snapshot in try snapshot.records.extreme(.min, of: altitude, in: entity) }.doubleValue == 7)
    }
}
