import ImporterTestSupport
import Foundation
@testable import ImporterKit
import ImporterModel
@testable import ImporterStoreSQLite
import Testing

/// The matcher that notes, on the merger's thread, the merged records the store held unchanged
/// (`StoredRowMatcher`): a record is noted with its row's id only when that row held exactly its
/// values before the run; anything else is noted 0, and `BatchUpserter` never skips a row the run
/// has written since.
@Suite struct StoredRowMatcherTests {
    static let names = ["date", "energy", "impact_energy", "latitude", "longitude", "altitude", "velocity"]

    /// A store of `count` records; the matcher for the columns of `names`, and those columns.
    private static func store(_ directory: TemporaryDirectory, count: Int) throws -> (path: String, columns: [Int]) {
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("base.json", ReloadMergeTests.feed(Array(0..<count)))], into: path)
        return (path, names.compactMap(FireballModel.entity.attributeIndex(named:)))
    }

    /// The stored rows in key order as a feed would bring them, every 100th with another energy,
    /// and their ids.
    private static func storedRows(_ path: String, columns: [Int]) throws -> (batch: RecordBatch, ids: [Int64]) {
        var batch = RecordBatch(columns: columns, keyPositions: [0])
        var ids: [Int64] = []
        let connection = try SQLiteConnection(path: path, create: false)
        try connection.prepare("SELECT id, \(names.joined(separator: ", ")) FROM fireball ORDER BY date").forEachRow { row in
            let record = batch.count
            guard case .integer(let id) = row.value(at: 0) else { return }
            ids.append(id)
            for column in 1...Int32(names.count) {
                switch row.value(at: column) {
                case .text(let text): batch.append(batch.appendText(text, count: text.utf8.count))
                case .real(let value): batch.append(.real(column == 2 && record % 100 == 7 ? value + 0.5 : value))
                default: batch.append(.null)
                }
            }
            batch.commitRecord(RecordOrigin(recordIndex: record, line: 1, column: 1))
        }
        return (batch, ids)
    }

    /// The records of `batch` at `records`, in that order, as one batch.
    private static func picking(_ records: [Int], of batch: RecordBatch) -> RecordBatch {
        var picked = RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions)
        for record in records { picked.appendRecord(record, of: batch) }
        return picked
    }

    @Test func notesExactlyTheRecordsTheStoreHeldUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, columns) = try Self.store(directory, count: 1500)
        let entity = FireballModel.entity
        #expect(StoredRowMatcher.make(path: path, entity: entity, columns: columns, lastIDBefore: 0) == nil, "a first load has nothing to note")
        let matcher = try #require(StoredRowMatcher.make(path: path, entity: entity, columns: columns, lastIDBefore: 1500))
        let (rows, ids) = try Self.storedRows(path, columns: columns)
        // In key order, batches of 64; record 500 repeated (equal keys side by side); record 900 left out.
        let order = Array(0..<501) + [500] + Array(501..<900) + Array(901..<1500)
        var noted: [Int64] = []
        for start in stride(from: 0, to: order.count, by: 64) {
            var batch = Self.picking(Array(order[start..<min(start + 64, order.count)]), of: rows)
            try matcher.note(&batch)
            noted += try #require(batch.storedUnchanged)
        }
        #expect(noted == order.map { $0 % 100 == 7 ? 0 : ids[$0] }, "changed records noted 0, the others with their row's id")
    }

    /// A batch the merge ordered otherwise than the index only makes rows be passed by: what is
    /// noted is still right, the rest is 0.
    @Test func aBatchOutOfTheIndexOrderIsNotedZeroNeverWrongly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (path, columns) = try Self.store(directory, count: 300)
        let matcher = try #require(StoredRowMatcher.make(path: path, entity: FireballModel.entity, columns: columns, lastIDBefore: 300))
        let (rows, ids) = try Self.storedRows(path, columns: columns)
        var batch = Self.picking(Array((0..<300).reversed()), of: rows)
        try matcher.note(&batch)
        let noted = try #require(batch.storedUnchanged)
        #expect(noted.first == ids[299])
        #expect(noted.dropFirst().allSatisfy { $0 == 0 })
    }

    /// A row an earlier feed of the run changed, which a later, shuffled feed brings back with the
    /// values it held before the run: noted unchanged against the last committed state, it is
    /// still written (merged over the earlier feed's), with or without the filter.
    @Test(arguments: [true, false])
    func aRowTheRunWroteIsWrittenAgainThoughNoted(filter: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("base.json", ReloadMergeTests.feed(Array(0..<400)))], into: path)
        let first = try directory.write("first.json", ReloadMergeTests.feed([10], energy: { _ in 99 }))
        var indices = Array(0..<400)
        var generator = SplitMix64(seed: 7)
        indices.shuffle(using: &generator)
        let second = try directory.write("second.json", ReloadMergeTests.feed(indices))
        let result = try importFeeds([first, second], into: path, batchSize: 16) {
            $0.sortRunBytes = 4096
            $0.filtersUnchangedBeforeSorting = filter
        }
        let energies = try fireballRows(path).map { $0["energy"] }
        #expect(energies == (0..<400).sorted { Self.date($0) < Self.date($1) }.map { .real(Double($0 % 97) / 4) }, "every record as the second feed has it")
        #expect(result.totals.duplicates == 1)
    }

    private static func date(_ index: Int) -> String {
        let t = index * 3701
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", 2001 + t / 31_104_000, 1 + t / 2_592_000 % 12, 1 + t / 86400 % 28, t / 3600 % 24, t / 60 % 60, t % 60)
    }
}
