import ImporterTestSupport
import Foundation
@testable import ImporterKit
import ImporterPipeline
@testable import ImporterModel
import ImporterStore
import PostgresTestSupport

/// Imports `rows` (the API feed's record arrays) into `store` with history and without view
/// replay, as the PostgreSQL suites' first loads and re-loads do.
func importFireballs(_ rows: [String], into store: Store, in directory: TemporaryDirectory) throws -> ImportResult {
    let feed = try directory.write("feed-\(UUID().uuidString).json", fireballFeed(rows))
    var options = ImportOptions(author: "t", context: "test")
    options.replayViews = false
    return try ImportSession(store: store, model: FireballModel.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
}

/// A new store on `cluster` and its database's name.
func newPostgresStore(on cluster: PostgresTestCluster) throws -> (store: Store, database: String) {
    let url = try cluster.newStoreURL()
    return (try Store.open(url), PostgresTestCluster.database(of: url))
}
