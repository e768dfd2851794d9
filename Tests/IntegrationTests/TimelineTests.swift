import ImporterTestSupport
import Foundation
import Testing

/// `importer history --key`: one record's timeline, re-keys followed.
@Suite struct TimelineTests {
    @Test func aRecordsTimelineFollowsItsReKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        for key in ["2023-04-11 14:52:09", "2023-04-11 14:52:10"] {
            let timeline = try importer(["history", "--store", store, "--key", key, "--format", "json"])
            #expect(timeline.status == 0, "\(timeline.stderr)")
            let transactions = try #require((timeline.json as? [String: Any])?["transactions"] as? [[String: Any]])
            #expect(transactions.compactMap { $0["number"] as? Int } == [1, 2], "\(key)")
            let changes = transactions.flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }
            #expect(changes.compactMap { $0["type"] as? String } == ["insert", "update"])
            #expect(Set(changes.compactMap { $0["record_id"] as? Int }).count == 1)
            let changed = changes.last?["changed"] as? [String: [String: String]]
            #expect(changed?["date"] == ["old": "2023-04-11 14:52:09", "new": "2023-04-11 14:52:10"])
        }
        let markdown = try importer(["history", "--store", store, "--key", "2023-04-11 14:52:10", "--format", "markdown"])
        #expect(markdown.stdout.hasPrefix("# importer history: Fireball 2023-04-11 14:52:10"))
        #expect(markdown.stdout.contains("| update (re-keyed) |"))
        let none = try importer(["history", "--store", store, "--key", "1999-01-01 00:00:00", "--format", "json"])
        #expect(none.status == 0)
        #expect(((none.json as? [String: Any])?["transactions"] as? [Any])?.isEmpty == true)
        #expect(try importer(["history", "--store", store, "--key", "x", "--since", "2020-01-01"]).status == 64)
    }
}
