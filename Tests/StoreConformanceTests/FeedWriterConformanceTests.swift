import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
@testable import ImporterStore
import PostgresTestSupport
import Testing

/// The feed writer each backend owns (`ImportWriting.beginFeed`), through the handle only: records
/// are written, a repeated key comes back as a value (from `finish`, or from `applyUpserts` where a
/// stage finds it), and nothing of it stays when the transaction rolls back.
@Suite(.serialized) struct FeedWriterConformanceTests {
    static let entity = EntityDescription(name: "Item", tableName: "item",
                                          attributes: [AttributeDescription(name: "code", type: .text, isOptional: false),
                                                       AttributeDescription(name: "amount", type: .integer)],
                                          uniqueKey: ["code"], tombstoneAttributes: ["code"])

    static func batch(_ rows: [(String, Int64)], feed: Int, duplicates: DuplicateKeys) -> RecordBatch {
        var batch = RecordBatch(columns: [0, 1], keyPositions: [0])
        for (index, row) in rows.enumerated() {
            let code = Array(row.0.utf8).withUnsafeBufferPointer { batch.appendText($0.baseAddress ?? emptyBytes, count: $0.count) }
            batch.append(code)
            batch.append(.integer(row.1))
            batch.commitRecord(RecordOrigin(recordIndex: index, line: Int32(index + 2), column: 1))
        }
        (batch.feed, batch.duplicates) = (feed, duplicates)
        return batch
    }

    /// Writes `batches` as feeds of one import and returns what the writers and the apply logged,
    /// the counts, and whether anything was written (rolled back unless `commit`).
    private func write(_ store: Store, _ batches: [RecordBatch], commit: Bool) throws -> (DuplicateLog, ChangeCounts) {
        try store.ensureEntities([Self.entity])
        return try store.inTransaction { tx in
            let transaction = try tx.records.beginImport([Self.entity])
            var log = DuplicateLog()
            for batch in batches {
                let writer = try transaction.beginFeed(FeedWriteOptions(entity: Self.entity, batchSize: 2, sortRunBytes: 1 << 20,
                                                                   filtersUnchanged: true, temporaryDirectory: NSTemporaryDirectory()))
                try writer.add(batch)
                log.append(contentsOf: try writer.finish().duplicates)
            }
            log.append(contentsOf: try transaction.applyUpserts(Self.entity))
            let counts = try transaction.closeEntity(Self.entity)
            let metadata = TransactionMetadata(author: "t", context: "test", sources: ["feed"])
            _ = try transaction.finish(metadata: metadata, counts: [(Self.entity.name, counts)])
            return .commit((log, counts), unless: !commit)
        }
    }

    private func rows(_ store: Store, _ sql: String) throws -> [[Value]] {
        var rows: [[Value]] = []
        try store.query(sql, columns: { _ in }) { rows.append($0) }
        return rows
    }

    @Test(arguments: BackendConformanceTests.Backend.allCases)
    func aRepeatedKeyComesBackAsAValue(backend: BackendConformanceTests.Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let rejecting = Self.batch([("a", 1), ("b", 2), ("a", 3)], feed: 0, duplicates: .reject)
        let (log, counts) = try write(store, [rejecting], commit: true)
        #expect(counts.inserted == 2, "\(counts)")
        #expect(log.rejected.count == 1 && log.count == 0, "\(log)")
        #expect(log.rejected.first?.later.recordIndex == 2 && log.rejected.first?.first?.recordIndex == 0, "\(log)")
        #expect(log.rejected.first?.key == [.text("a")])
        #expect(try rows(store, "SELECT code, amount FROM item ORDER BY code") == [[.text("a"), .integer(1)], [.text("b"), .integer(2)]], "the first kept")
        // A second feed repeating a key merges over it: logged as a merge.
        let (second, _) = try write(store, [Self.batch([("b", 1)], feed: 0, duplicates: .last), Self.batch([("b", 20)], feed: 1, duplicates: .last)],
                                    commit: false)
        #expect(second.count == 1 && second.earliest.first?.resolution == .merged && second.rejected.isEmpty, "\(second)")
        let (rolledBack, _) = try write(store, [Self.batch([("c", 5), ("c", 6), ("c", 7)], feed: 0, duplicates: .last)], commit: false)
        #expect(rolledBack.count == 2 && rolledBack.earliest.map(\.later.recordIndex) == [1, 2], "\(rolledBack)")
        #expect(try rows(store, "SELECT count(*) FROM item") == [[.integer(2)]], "nothing of a rolled-back feed stays")
    }
}
