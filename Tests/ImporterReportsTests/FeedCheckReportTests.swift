import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// `importer check`'s report over the 2024 sample (10 records, no rejects) and a feed with one
/// unparseable date (one reject).
@Suite struct FeedCheckReportTests {
    static func render(_ format: ListFormat, feeds: [String], store: StoreModelCheck?, at path: String?) throws -> String {
        let output = OutputSink.memory()
        var report = FeedCheckReport(format: format, output: output)
        var rejected = 0
        for feed in feeds {
            let check = try FeedChecker(model: FireballModel.model).check(FeedInput(path: feed, mapping: FireballModel.apiFeed)) { report.reject($0) }
            rejected += check.rejected
            report.feed(check)
        }
        report.finish(store: store, at: path, rejected: rejected)
        return output.memoryText
    }

    @Test func textSummarizesEachFeedAndTheStore() throws {
        let lines = try Self.render(.text, feeds: [sample("fireball-2024.json")], store: .held([("Fireball", 4)]), at: "s.sqlite")
            .split(separator: "\n").map(String.init)
        #expect(lines[0] == "\(sample("fireball-2024.json")): 10 record(s) of Fireball (mapping \(FireballModel.apiFeed.name), nasa-columnar): 10 would be imported, 0 rejected")
        #expect(lines[1].hasPrefix("  supplies: date, energy"))
        #expect(lines.contains { $0.hasPrefix("  field energy: present in 10, null in 0, rejected in 0 of 10 record(s)") })
        #expect(lines.last == "store s.sqlite: accepts the model (Fireball: 4 records held)")
        let absent = try Self.render(.text, feeds: [sample("fireball-2024.json")], store: .absent, at: "new.sqlite")
        #expect(absent.hasSuffix("\nstore new.sqlite: does not exist yet; checked as empty (the first run creates it)\n"))
    }

    @Test func textListsRejectsBeforeTheirFeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = try directory.write("bad.json", fireballFeed([#"["not a date","1.0","0.1","1.0","N","2.0","E","30","15"]"#]))
        let lines = try Self.render(.text, feeds: [feed], store: nil, at: nil).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("rejected: "))
        #expect(lines[1].hasSuffix(": 1 record(s) of Fireball (mapping \(FireballModel.apiFeed.name), nasa-columnar): 0 would be imported, 1 rejected"))
    }

    @Test func jsonIsOneObjectWithFeedsRejectsAndStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let bad = try directory.write("bad.json", fireballFeed([#"["not a date","1.0","0.1","1.0","N","2.0","E","30","15"]"#]))
        let text = try Self.render(.json, feeds: [sample("fireball-2024.json"), bad], store: .absent, at: "new.sqlite")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["rejected"] as? Int == 1)
        let feeds = try #require(json["feeds"] as? [[String: Any]])
        #expect(feeds.map { $0["records"] as? Int } == [10, 1])
        #expect(feeds.map { ($0["rejects"] as? [Any])?.count } == [0, 1])
        #expect(feeds[0]["format"] as? String == "nasa-columnar" && feeds[0]["entity"] as? String == "Fireball")
        let store = try #require(json["store"] as? [String: Any])
        #expect(store["exists"] as? Bool == false && store["path"] as? String == "new.sqlite" && (store["records"] as? [String: Any])?.isEmpty == true)
        let withoutStore = try Self.render(.json, feeds: [sample("fireball-2024.json")], store: nil, at: nil)
        #expect(withoutStore.hasSuffix(",\"rejected\":0,\"store\":null}\n"))
    }
}
