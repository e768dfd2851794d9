import ImporterTestSupport
@testable import ImporterKit
import ImporterStore
import PostgresTestSupport
import Testing

/// A first load COPies into the entity table itself: binary only while its columns keep the types
/// the importer created them with; a column a user altered is loaded from text, as before.
@Suite struct AlteredColumnTypeTests {
    @Test func aFirstLoadIntoAColumnAUserAlteredStoresTheFeedsValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let (store, database) = try newPostgresStore(on: cluster)
        #expect(try importFireballs([], into: store, in: directory).totals.inserted == 0)
        _ = try cluster.psql("ALTER TABLE fireball ALTER COLUMN energy TYPE numeric", database: database)
        let rows = (0..<50).map { #"["2024-01-01 00:00:\#(String(format: "%02d", $0))","\#($0).25","0.1","12.5","N","40.1","E","30.0","15.2"]"# }
        #expect(try importFireballs(rows, into: store, in: directory).totals.inserted == 50)
        #expect(try cluster.psql("SELECT sum(energy), pg_typeof(sum(energy)) FROM fireball", database: database).hasPrefix("1237.50"))
    }
}
