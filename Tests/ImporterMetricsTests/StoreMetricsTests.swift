import ImporterTestSupport
import Foundation
@testable import ImporterMetrics
@testable import ImporterKit
import Testing

/// Consumer lags and the store's gauges, read from a real SQLite store.
@Suite struct StoreMetricsTests {
    /// A store with the 2024 then the 2026 snapshot imported (two transactions), a consumer that
    /// consumed the first, and the views the model defines (replayed by the runs).
    static func store(in directory: TemporaryDirectory) throws -> Store {
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let store = try Store(path: path)
        try store.write { try $0.addConsumer(Consumer(name: "mailer", kind: .external, tokenNumber: 1)) }
        try importFeeds([sample("fireball-2026.json")], into: path, sync: true)
        return store
    }

    @Test func lagsCountPendingTransactionsAndTheAgeOfTheOldest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let second = try #require(try store.read { try $0.transaction(2) })
        let committed = try #require(ConsumerLag.unixSeconds(of: second.timestamp))
        let lags = try store.read { try ConsumerLag.read(in: $0, now: committed + 90) }
        let mailer = try #require(lags.first { $0.consumer == "mailer" })
        #expect(mailer.transactions == 1)
        #expect(abs(mailer.seconds - 90) < 0.001)
        let views = lags.filter { (lag: ConsumerLag) in lag.kind == Consumer.Kind.view }
        #expect(views.count == 2)
        for view in views { #expect(view.transactions == 0 && view.seconds == 0 && !view.expired, "\(view)") }
        try store.write { try $0.setConsumerToken("mailer", to: 2) }
        #expect(try store.read { try ConsumerLag.read(in: $0, now: committed + 90) }.first { $0.consumer == "mailer" }?.transactions == 0)
    }

    @Test func storeGaugesMatchTheStatus() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let status = try StoreStatus(store: store)
        let now = Date().timeIntervalSince1970
        let families = StoreMetrics(status: status, consumerLags: try store.read { try ConsumerLag.read(in: $0, now: now) }).families
        func value(_ name: String, _ label: (String, String)? = nil) -> Double? {
            families.first { $0.name == name }?.samples.first { sample in label.map { l in sample.labels.contains { $0.name == l.0 && $0.value == l.1 } } ?? true }?.value
        }
        #expect(value("importer_store_records", ("entity", "Fireball")) == Double(status.entities[0].records))
        #expect(value("importer_store_history_transactions") == 2)
        #expect(value("importer_store_history_changes") == Double(status.history.changes))
        #expect(value("importer_store_history_newest_transaction") == 2)
        #expect(value("importer_store_history_oldest_transaction") == 1)
        #expect(value("importer_store_history_purged_through_transaction") == 0)
        #expect(value("importer_consumer_lag_transactions", ("consumer", "mailer")) == 1)
        #expect(value("importer_store_info", ("store_id", status.storeID)) == 1)
        #expect(families.allSatisfy { family in family.samples.allSatisfy { !$0.labels.contains { $0.name == "job" } } })
    }
}
