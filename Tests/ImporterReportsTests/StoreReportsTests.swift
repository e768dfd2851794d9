import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterViews
import Testing

/// The renderings of `status`, `views list|rebuild|verify` and `consumers list` over a store holding
/// the 2024 sample (10 fireballs, one transaction, the two views of the fireball model).
@Suite struct StoreReportsTests {
    static func store(_ directory: TemporaryDirectory) throws -> Store {
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        return try Store(path: path)
    }

    static func text(_ report: some ListReport, as format: ListFormat = .text) -> String {
        let sink = OutputSink.memory()
        report.render(as: format, to: sink)
        return sink.memoryText
    }

    static func json(_ report: some ListReport) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text(report, as: .json).utf8))
    }

    @Test func statusTextNamesRecordsHistoryViewsAndRejects() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let lines = Self.text(StatusReport(try StoreStatus(store: store))).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("Store \(store.path): ") && lines[0].contains(", schema "))
        #expect(lines[1] == "  Fireball (table fireball): 10 records")
        #expect(lines[2].hasPrefix("History: 1 transaction(s), 10 change(s), oldest 1 ("))
        #expect(lines[3] == "Purged: nothing")
        #expect(lines[4] == "Consumers: none")
        #expect(lines[5] == "Views: ")
        #expect(lines.filter { $0.hasPrefix("  fireball_by_") && $0.contains("[view]") }.count == 2)
        #expect(lines.last == "Rejects: 0 in 0 run(s)")
    }

    @Test func statusJSONIsOneObjectWithTheDocumentedMembers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let json = try #require(try Self.json(StatusReport(try StoreStatus(store: try Self.store(directory)))) as? [String: Any])
        #expect(Set(json.keys) == ["path", "bytes", "wal_bytes", "schema_version", "store_id", "created_at", "entities", "history", "consumers", "views", "rejects", "sources"])
        #expect((json["entities"] as? [String: [String: Any]])?["Fireball"]?["records"] as? Int == 10)
        let history = try #require(json["history"] as? [String: Any])
        #expect(history["transactions"] as? Int == 1 && history["purged_through"] as? Int == 0)
        #expect(history["purged_at"] is NSNull)
        #expect((json["views"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["fireball_by_region", "fireball_by_year"])
        #expect((json["consumers"] as? [Any])?.isEmpty == true)
        #expect(json["rejects"] as? [String: Int] == ["runs": 0, "records": 0])
    }

    @Test func viewListShowsEachViewsDefinitionAndToken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let report = try store.read { try ViewListReport(in: $0) }
        let lines = Self.text(report).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.contains { $0.hasPrefix("fireball_by_year: Fireball grouped by year; ") })
        #expect(lines.filter { $0.hasPrefix("  token at transaction 1 of 1, last replay ") }.count == 2)
        let json = try #require(try Self.json(report) as? [[String: Any]])
        #expect(json.map { $0["lag"] as? Int } == [0, 0])
        #expect(json.map { $0["expired"] as? Bool } == [false, false])
        #expect(Self.text(ViewListReport(views: [], head: 0, purgedThrough: 0)) == "No views.\n")
    }

    @Test func viewRebuildReportsRecordsGroupsAndToken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let report = try store.write { try ViewRebuildReport.rebuild("fireball_by_year", storeID: store.storeID, entities: store.entities, in: $0) }
        #expect(report.records == 10 && report.entity == "Fireball")
        let text = Self.text(report)
        #expect(text.hasPrefix("Rebuilt fireball_by_year from 10 Fireball records: \(report.groups) group"))
        #expect(text.hasSuffix("against the rows it replaced), token at transaction 1.\n"))
        let json = try #require(try Self.json(report) as? [String: Any])
        #expect(json["token"] as? String == store.token(1).description)
        #expect(json["groups"] as? Int == report.groups && json["transaction"] as? Int == 1)
    }

    @Test func viewVerifyMatchesAFreshStoreAndListsDifferences() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let report = try store.read { try ViewVerifyReport.verify(nil, entities: store.entities, in: $0) }
        #expect(report.matches && report.views.sorted() == ["fireball_by_region", "fireball_by_year"])
        #expect(Self.text(report) == "Views match their full recomputation.\n")
        let different = ViewVerifyReport(views: ["v"], differences: [ViewDifference(view: "v", group: [.integer(2024)], column: "n", incremental: .integer(3), recomputed: nil)])
        #expect(!different.matches)
        #expect(Self.text(different) == "v group (2024): n is 3 incrementally, missing recomputed\n")
        let json = try #require(try Self.json(different) as? [String: Any])
        #expect(json["match"] as? Bool == false)
        let difference = try #require((json["differences"] as? [[String: Any]])?.first)
        #expect(difference["group"] as? [Int] == [2024] && difference["incremental"] as? Int == 3 && difference["recomputed"] is NSNull)
    }

    @Test func consumerListShowsEveryConsumerOrNone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(directory)
        let statuses = try store.read { try $0.consumerStatuses(storeID: store.storeID) }
        let report = ConsumerListReport(statuses, purgedThrough: 0)
        #expect(Self.text(report).split(separator: "\n").count == statuses.count)
        #expect((try Self.json(report) as? [[String: Any]])?.count == statuses.count)
        #expect(Self.text(ConsumerListReport([], purgedThrough: 0)) == "No consumers.\n")
        #expect(Self.text(ConsumerListReport([], purgedThrough: 0), as: .json) == "[]\n")
    }
}
