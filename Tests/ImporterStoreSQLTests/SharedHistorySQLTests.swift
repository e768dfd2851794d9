import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
@testable import ImporterStore
import ImporterStoreSQL
@testable import ImporterStorePostgres
@testable import ImporterStoreSQLite
import PostgresTestSupport
import Testing

/// The history bookkeeping both backends share, run through each backend's executor: change rows
/// written by hand into an entity's change table (`EntityTables`) are counted (`changeCounts`),
/// found by record (`transactionsTouching`) and decoded (`ChangeRowDecoder`) alike, and
/// `recordTransaction` writes a transaction only when something changed.
@Suite(.serialized) struct SharedHistorySQLTests {
    static let entity = FireballModel.entity

    /// A new store of `backend` holding the fireball entity, and its shared SQL.
    static func open(_ backend: String, in directory: TemporaryDirectory) throws -> (Store, any SQLBackend) {
        let store = backend == "sqlite" ? try Store.open(directory.path("s.sqlite")) : try Store.open(try PostgresTestCluster.start().newStoreURL())
        let sql = try #require(store.backend as? any SQLBackend)
        try store.write { try $0.records.ensureEntities([entity]) }
        return (store, sql)
    }

    /// Four change rows (ids 1...4): transaction 1 inserts records 1 and 2, transaction 2 updates
    /// record 1's energy from 1.5 to 3, transaction 3 deletes record 2.
    static func writeChanges(_ sql: any SQLBackend) throws {
        let tables = sql.tables(of: entity)
        let insert = """
            INSERT INTO \(tables.changeTable) (\(tables.changeHead), \(tables.changed), "date", "energy", \(tables.old("energy")))
            VALUES (\((1...7).map(sql.dialect.parameter).joined(separator: ", ")))
            """
        for row: [Value] in [[.integer(1), .integer(1), .text("insert"), .null, .text("2024-01-01 00:00:00"), .real(1.5), .null],
                             [.integer(1), .integer(2), .text("insert"), .null, .text("2024-01-02 00:00:00"), .real(2), .null],
                             [.integer(2), .integer(1), .text("update"), .text("energy"), .text("2024-01-01 00:00:00"), .real(3), .real(1.5)],
                             [.integer(3), .integer(2), .text("delete"), .null, .text("2024-01-02 00:00:00"), .real(2), .null]] {
            try sql.executor.execute(insert, row)
        }
    }

    @Test(arguments: ["sqlite", "postgres"]) func changeRowsAreCountedFoundAndDecodedAlike(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, sql) = try Self.open(backend, in: directory)
        try store.write { _ in try Self.writeChanges(sql) }
        try store.read { _ in
            let all = try sql.changeCounts(of: Self.entity, after: 0)
            #expect(all.counts == ChangeCounts(inserted: 2, updated: 1, deleted: 1) && all.changeIDs == 1...4)
            let later = try sql.changeCounts(of: Self.entity, after: 2)
            #expect(later.counts == ChangeCounts(updated: 1, deleted: 1) && later.changeIDs == 3...4)
            #expect(try sql.changeCounts(of: Self.entity, after: 4).changeIDs == nil)
            #expect(try sql.transactionsTouching(Self.entity, recordIDs: [1], after: 0) == [1, 2])
            #expect(try sql.transactionsTouching(Self.entity, recordIDs: [1, 2], after: 1) == [2, 3])
            #expect(try sql.transactionsTouching(Self.entity, recordIDs: [], after: 0).isEmpty)
            let tables = sql.tables(of: Self.entity)
            let rows = try sql.executor.rows("SELECT \(tables.changeRowColumns) FROM \(tables.changeTable) ORDER BY \(tables.changeID)", [])
            let changes = rows.map { row in ChangeRowDecoder(entity: Self.entity).change { row[$0] } }
            #expect(changes.map(\.type) == [.insert, .insert, .update, .delete] && changes.map(\.recordID) == [1, 2, 1, 2])
            #expect(changes[2].changed.map(\.attribute) == ["energy"] && changes[2].changed.first?.old == .real(1.5)
                && changes[2].changed.first?.new == .real(3) && changes[2].key.first?.1 == .text("2024-01-01 00:00:00"))
            #expect(changes[3].tombstone.first?.1 == .text("2024-01-02 00:00:00") && changes[0].changed.isEmpty)
        }
    }

    @Test(arguments: ["sqlite", "postgres"]) func aTransactionIsRecordedOnlyWhenSomethingChanged(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, sql) = try Self.open(backend, in: directory)
        let metadata = TransactionMetadata(author: "t", context: "test", sources: ["a.json"])
        #expect(try !store.write { _ in try sql.recordTransaction(1, metadata: metadata, entities: [("Fireball", ChangeCounts(unchanged: 4), nil)]) })
        #expect(try store.read { _ in try sql.lastTransactionNumber() } == 0)
        let counts = ChangeCounts(inserted: 2, unchanged: 1)
        #expect(try store.write { _ in try sql.recordTransaction(1, metadata: metadata, entities: [("Fireball", counts, 1...2)]) })
        try store.read { _ in
            #expect(try sql.lastTransactionNumber() == 1)
            let transactions = try sql.transactions(after: 0, through: .max, limit: nil)
            #expect(transactions.map(\.number) == [1] && transactions.first?.author == "t" && transactions.first?.sources == ["a.json"])
            #expect(transactions.first?.totals == counts && transactions.first?.entities.first?.0 == "Fireball")
            #expect(try sql.changeRange(of: "Fireball", after: 0, through: 1) == 1...2)
        }
    }
}
