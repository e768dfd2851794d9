import ImporterTestSupport
import CSQLite
import Foundation
@testable import ImporterKit
@testable import ImporterStoreSQLite
import Testing

@Suite struct HistoryTests {
    @Test func oneTransactionPerRunWithItsMetadataAndCounts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path, author: "alice")
        try importFeeds([sample("fireball-2026.json"), sample("fireball-vel-comp.json")], into: path, sync: true, author: "bob")
        let store = try Store(path: path)
        let transactions = try store.read { try $0.transactions() }
        #expect(transactions.map(\.number) == [1, 2])
        #expect(transactions.map(\.author) == ["alice", "bob"])
        #expect(transactions[1].sources == [sample("fireball-2026.json"), sample("fireball-vel-comp.json")])
        #expect(transactions[1].processID == Int(ProcessInfo.processInfo.processIdentifier))
        #expect(transactions[1].timestamp.hasSuffix("Z"))
        #expect(transactions[1].totals.changes == (try store.read { try $0.changes(in: 2) }).count)
        #expect(transactions[1].entities.map(\.0) == ["Fireball"])
        #expect(transactions[1].token == store.token(2).description)
    }

    @Test func tokensAreOrderedAndBoundToTheirStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try importFeeds([sample("fireball-2024.json")], into: directory.path("a.sqlite"))
        try importFeeds([sample("fireball-2024.json")], into: directory.path("b.sqlite"))
        let a = try Store(path: directory.path("a.sqlite"))
        let b = try Store(path: directory.path("b.sqlite"))
        #expect(a.storeID != b.storeID)
        let token = a.token(1)
        #expect(try a.parseToken(token.description) == token)
        #expect(a.token(1) < a.token(2))
        #expect(throws: StoreError.self) { _ = try b.parseToken(token.description) }
        #expect(throws: StoreError.self) { _ = try a.parseToken("not-a-token") }
        #expect(throws: StoreError.self) { _ = try a.parseToken("") }
    }

    @Test func changeRowsMatchTheTrackedWritesOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        // Another program (no importer_transaction function) cannot change a tracked table.
        let outsider = try SQLiteConnection(path: path, create: false)
        #expect(throws: SQLiteError.self) { try outsider.execute("UPDATE fireball SET energy = 1") }
        #expect(throws: SQLiteError.self) { try outsider.execute("DELETE FROM fireball") }
        // Neither can importer's own connection outside an import.
        let store = try Store(path: path)
        #expect(throws: SQLiteError.self) { try #require(store.sqliteConnection).execute("UPDATE fireball SET energy = 1") }
        #expect(try fireballRows(path).count == 10)
    }

    @Test func failedImportsLeaveTheStoreByteForByteUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let before = try sha256(path)
        for bad in ["truncated", "count-mismatch", "unknown-version", "bad-number", "short-row"] {
            // The good feed first: its rows are written before the bad one fails.
            #expect(throws: ImportError.self) {
                try importFeeds([sample("fireball-2026.json"), sample("malformed/\(bad).json")], into: path, sync: true)
            }
            #expect(try sha256(path) == before, "\(bad)")
            // The last connection to close checkpoints and removes the WAL.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
        #expect(try fireballRows(path).count == 10)
    }

    @Test func addingAnOptionalAttributeMigratesOtherChangesAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        var entity = FireballModel.entity
        entity.attributes.append(AttributeDescription(name: "station", type: .text))
        var mapping = FireballModel.apiFeed
        mapping.fields.append(FieldMapping(attribute: "station", field: "station"))
        let model = Model(entities: [entity], feeds: [mapping])
        let store = try Store(path: path)
        let result = try ImportSession(store: store, model: model, options: ImportOptions()).run([FeedInput(path: sample("fireball-2024.json"), mapping: mapping)])
        #expect(result.transactionNumber == nil)
        #expect(store.entity(named: "Fireball")?.attribute(named: "station") != nil)
        #expect(try #require(store.sqliteConnection).scalar("SELECT count(*) FROM pragma_table_info('fireball') WHERE name = 'station'") == .integer(1))

        var retyped = FireballModel.entity
        retyped.attributes[1].type = .text
        let refused = Model(entities: [retyped], feeds: [FireballModel.apiFeed])
        #expect(throws: ImportError.self) {
            _ = try ImportSession(store: store, model: refused, options: ImportOptions()).run([FeedInput(path: sample("fireball-2024.json"), mapping: FireballModel.apiFeed)])
        }
        var rekeyed = FireballModel.entity
        rekeyed.uniqueKey = ["date", "energy"]
        #expect(throws: StoreError.self) { _ = try EntityMigration.plan(for: rekeyed, registered: FireballModel.entity) }
        var removed = FireballModel.entity
        removed.attributes.removeLast()
        #expect(throws: StoreError.self) { _ = try EntityMigration.plan(for: removed, registered: FireballModel.entity) }
    }

    @Test func refusesFilesThatAreNotImporterStores() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let other = directory.path("other.sqlite")
        try SQLiteConnection(path: other).execute("CREATE TABLE t(x)")
        #expect(throws: StoreError.self) { _ = try Store(path: other) }
        let text = try directory.write("text.sqlite", "hello, this is not a database at all, but it is long enough to have a header.............................")
        #expect(throws: StoreError.self) { _ = try Store(path: text) }
        #expect(throws: StoreError.self) { _ = try Store(path: directory.path("missing.sqlite"), options: Store.Options(create: false)) }
    }

    @Test func refusesStoresWithANewerSchema() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try Store(path: path)
        try SQLiteConnection(path: path).execute("PRAGMA user_version = 99")
        #expect(throws: StoreError.self) { _ = try Store(path: path) }
    }

    @Test func schemaCarriesVersionAndStoreID() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let store = try Store(path: path)
        #expect(try #require(store.sqliteConnection).scalar("PRAGMA user_version") == .integer(Int64(SQLiteStoreSchema.version)))
        #expect(try #require(store.sqliteConnection).scalar("PRAGMA application_id") == .integer(SQLiteStoreSchema.applicationID))
        #expect(try #require(store.sqliteConnection).scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try Store(path: path).storeID == store.storeID)
    }
}
