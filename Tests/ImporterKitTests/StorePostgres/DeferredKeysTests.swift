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

    @Test func aFirstLoadGetsItsKeysBackAndAReloadUpsertsThroughThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let store = try Store.open(url)
        let first = try run(store, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(try keys(cluster, PostgresTestCluster.database(of: url)) == Self.expectedKeys)
        #expect(try keys(cluster, PostgresTestCluster.database(of: url), of: "importer_change_fireball")
                    == "importer_change_fireball_pkey PRIMARY KEY (importer_change_id)")
        let again = try run(store, days: 5..<10, energy: "2.5", in: directory)
        #expect(again.totals.inserted == 2 && again.totals.updated == 3)
        #expect(try cluster.psql("SELECT count(*) FROM fireball", database: PostgresTestCluster.database(of: url)).hasPrefix("9"))
    }

    /// What depends on the keys: a foreign key that references the table (seen before the drop),
    /// a view grouped by the primary key (the drop fails and is rolled back to its savepoint).
    @Test(arguments: ["CREATE TABLE sightings (date text REFERENCES fireball (date))",
                      "CREATE VIEW fireball_days AS SELECT id, date FROM fireball GROUP BY id"])
    func keysSomethingDependsOnStay(dependent: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        let store = try Store.open(url)
        #expect(try run(store, days: 0..<0, in: directory).totals.inserted == 0)
        try cluster.psql(dependent, database: database)
        let first = try run(store, days: 1..<8, in: directory)
        #expect(first.totals.inserted == 7)
        #expect(try keys(cluster, database) == Self.expectedKeys)
    }
}
