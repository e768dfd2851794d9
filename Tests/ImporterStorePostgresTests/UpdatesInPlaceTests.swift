import ImporterTestSupport
import Foundation
@testable import ImporterKit
import ImporterPipeline
@testable import ImporterModel
@testable import ImporterStore
import PostgresTestSupport
import Testing

/// The entity table keeps room on each page (`PostgresEntitySchema.fillFactor`): a re-load's
/// update writes the record's new version on its own page (a HOT update, no index entry), even
/// where the first load filled the table.
@Suite struct UpdatesInPlaceTests {
    private static func row(_ second: Int, energy: String) -> String {
        let date = String(format: "2024-01-01 %02d:%02d:%02d", second / 3600, second / 60 % 60, second % 60)
        return #"["\#(date)","\#(energy)","0.1","12.5","N","40.1","E","30.0","15.2"]"#
    }

    @Test func anUpdatedRecordStaysOnItsPage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = try PostgresTestCluster.start()
        let (store, database) = try newPostgresStore(on: cluster)
        #expect(try importFireballs((0..<3000).map { Self.row($0, energy: "1.5") }, into: store, in: directory).totals.inserted == 3000)
        let pages = try cluster.psql("SELECT count(DISTINCT (ctid::text::point)[0]) FROM fireball", database: database)
        #expect(Int(pages.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 10, "the records fill many pages")
        let firstPage = "SELECT id FROM fireball WHERE (ctid::text::point)[0] = 0 ORDER BY id"
        let before = try cluster.psql(firstPage, database: database)
        let again = try importFireballs((0..<3000).map { Self.row($0, energy: $0 % 100 == 0 ? "2.5" : "1.5") }, into: store, in: directory)
        #expect(again.totals.updated == 30 && again.totals.unchanged == 2970)
        #expect(try cluster.psql(firstPage, database: database) == before, "the first page's records, one of them updated, are all still on it")
        #expect(try cluster.psql("SELECT count(*) FROM fireball WHERE energy = 2.5", database: database).hasPrefix("30"))
    }
}
