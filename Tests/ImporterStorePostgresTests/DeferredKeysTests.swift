import ImporterTestSupport
import Foundation
@testable import ImporterKit
import ImporterPipeline
@testable import ImporterModel
@testable import ImporterStore
import PostgresTestSupport
import Testing

/// A PostgreSQL first load builds the entity table's unique keys after its direct COPYs, and the
/// change table's primary key after its insert changes (`DeferredKeys`): the keys come back under
/// their names, and a table whose keys something depends on keeps them and loads all the same.
@Suite(.serialized) struct DeferredKeysTests {
    static let model = FireballModel.model

    private func run(_ store: Store, days: Range<Int>, energy: String = "1.0", in directory: TemporaryDirectory) throws -> ImportResult {
        let rows = days.map { #"["2024-01-\#(String(format: "%02d", $0)) 00:00:00","\#(energy)","0.1",null,null,null,null,null,null]"# }
        let feed = try directory.write("feed-\(UUID().uuidString).json", fireballFeed(rows))
        var options = ImportOptions(author: "t", context: "test")
        options.batchSize = 2
        options.replayViews = false
        return try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
    }

    private func keys(_ cluster: PostgresTestCluster, _ database: String, of table: String = "fireball") throws -> String {
        try cluster.psql("SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid), '; ' ORDER BY conname) FROM pg_constraint "
                         + "WHERE conrelid = '\(table)'::regclass AND contype IN ('p', 'u')", database: database)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let expectedKeys = "fireball_date_key UNIQUE (date); fireball_pkey PRIMARY KEY (id)"

    /// The oids of a table's indexes: new ones when they were dropped and built again.
    private func indexes(_ cluster: PostgresTestCluster, _ database: String, of table: String = "fireball") throws -> String {
        try cluster.psql("SELECT string_agg(indexrelid::text, ',' ORDER BY indexrelid) FROM pg_index WHERE indrelid = '\(table)'::regclass",
                         database: database).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A store whose tables exist and are empty (an empty feed's run made them).
    private func emptyStore(_ cluster: PostgresTestCluster, in directory: TemporaryDirectory) throws -> (Store, String) {
        let (store, database) = try newPostgresStore(on: cluster)
        #expect(try run(store, days: 0..<0, in: directory).totals.inserted == 0)
        return (store, database)
    }

    @Test func aFirstLoadBuildsItsKeysAgainAndAReloadUpsertsThroughThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let (store, database) = try emptyStore(cluster, in: directory)
        let before = (try indexes(cluster, database), try indexes(cluster, database, of: "importer_change_fireball"))
        let first = try run(store, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(try keys(cluster, database) == Self.expectedKeys)
        #expect(try keys(cluster, database, of: "importer_change_fireball") == "importer_change_fireball_pkey PRIMARY KEY (importer_change_id)")
        let after = (try indexes(cluster, database), try indexes(cluster, database, of: "importer_change_fireball"))
        #expect(after.0 != before.0 && after.1 != before.1, "both tables' keys were built again")
        let again = try run(store, days: 5..<10, energy: "2.5", in: directory)
        #expect(again.totals.inserted == 2 && again.totals.updated == 3)
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: database).hasPrefix("9"))
        #expect(try indexes(cluster, database) == after.0, "a re-load keeps the keys")
    }

    /// What depends on the keys: a foreign key that references the table (seen before the drop),
    /// a view grouped by the primary key (the drop fails and is rolled back to its savepoint).
    @Test(arguments: ["CREATE TABLE sightings (date text REFERENCES fireball (date))",
                      "CREATE VIEW fireball_days AS SELECT id, date FROM fireball GROUP BY id"])
    func keysSomethingDependsOnStay(dependent: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let (store, database) = try emptyStore(cluster, in: directory)
        try cluster.psql(dependent, database: database)
        let before = try indexes(cluster, database)
        let first = try run(store, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(try keys(cluster, database) == Self.expectedKeys)
        #expect(try indexes(cluster, database) == before, "the keys were kept")
    }

    /// A reader's open transaction on the table: the drop gives up after its lock timeout and the
    /// load goes on with the keys kept, instead of waiting for the reader.
    @Test func aReaderHoldingTheTableMakesTheLoadKeepItsKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let (store, database) = try emptyStore(cluster, in: directory)
        let before = try indexes(cluster, database)
        let reader = try cluster.holdReadLock(database: database, table: "fireball", seconds: 30)
        defer { reader.terminate() }
        let started = Date()
        let first = try run(store, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(Date().timeIntervalSince(started) < 20, "the load did not wait for the reader")
        #expect(try indexes(cluster, database) == before, "the keys were kept")
        #expect(try keys(cluster, database) == Self.expectedKeys)
    }

    /// A role that may write the tables but does not own them cannot drop their keys: the load
    /// keeps them and goes on.
    @Test func aRoleThatDoesNotOwnTheTableLoadsWithItsKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        #expect(try run(try Store.open(url), days: 0..<0, in: directory).totals.inserted == 0)
        try cluster.psql(["DO $$ BEGIN CREATE ROLE loader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                          "GRANT USAGE, CREATE ON SCHEMA public TO loader",
                          "GRANT ALL ON ALL TABLES IN SCHEMA public TO loader",
                          "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO loader"], database: database)
        let before = try indexes(cluster, database)
        let loader = try Store.open(url.replacingOccurrences(of: "postgres@", with: "loader@"))
        let first = try run(loader, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(try indexes(cluster, database) == before, "the keys were kept")
        #expect(try keys(cluster, database) == Self.expectedKeys)
    }
}
