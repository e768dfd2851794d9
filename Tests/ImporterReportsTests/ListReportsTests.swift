import ImporterTestSupport
import Foundation
@testable import ImporterHistory
@testable import ImporterKit
import Testing

/// The renderings of `rejects list|show`, `history purge`, `replay`, `views show` and the
/// confirmations of commands that change something, from values built here.
@Suite struct ListReportsTests {
    static func render(_ body: (OutputSink) -> Void) -> String {
        let sink = OutputSink.memory()
        body(sink)
        return sink.memoryText
    }

    static let run = RejectRunSummary(run: 3, transactionNumber: 7, createdAt: "2026-01-02T03:04:05.000Z", count: 2, sources: ["a.json", "b.json"])

    @Test func rejectRunsListOneLinePerRun() throws {
        #expect(Self.render { RejectRunsReport([]).renderText(to: $0) } == "No rejects.\n")
        #expect(Self.render { RejectRunsReport([Self.run]).renderText(to: $0) } == "run 3 at 2026-01-02T03:04:05.000Z: 2 reject(s) in a.json, b.json, transaction 7\n")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.render { RejectRunsReport([Self.run]).renderJSON(to: $0) }.utf8)) as? [[String: Any]])
        #expect(json.count == 1 && json[0]["run"] as? Int == 3 && json[0]["transaction"] as? Int == 7 && json[0]["rejects"] as? Int == 2)
        #expect(json[0]["sources"] as? [String] == ["a.json", "b.json"])
    }

    @Test func rejectsWithoutARunSayNoneInEachFormat() {
        let none = RejectsReport(run: nil, rejects: [])
        #expect(Self.render { none.render(as: .text, to: $0) } == "No rejects.\n")
        #expect(Self.render { none.render(as: .json, to: $0) } == "{\"run\":null,\"rejects\":[]}\n")
        #expect(Self.render { none.render(as: .ndjson, to: $0) } == "")
        #expect(Self.render { RejectsReport(run: 4, rejects: []).render(as: .text, to: $0) } == "")
    }

    @Test func purgeNamesWhatItDeletedAndTheConsumersItExpired() throws {
        let quiet = PurgeReport(PurgeResult(purgedThrough: 5, transactions: 5, changes: 40, expiredConsumers: []))
        #expect(Self.render { quiet.renderText(to: $0) } == "Purged 5 transaction(s) and 40 change(s); history is kept after transaction 5.\n")
        let expiring = PurgeReport(PurgeResult(purgedThrough: 5, transactions: 5, changes: 40, expiredConsumers: ["mailer", "fireball_by_year"]))
        #expect(Self.render { expiring.renderText(to: $0) }.hasSuffix(
            "\nExpired consumers: mailer, fireball_by_year (views: importer views rebuild NAME; others: importer consumers reset NAME)\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.render { expiring.renderJSON(to: $0) }.utf8)) as? [String: Any])
        #expect(json["purged_through"] as? Int == 5 && json["changes"] as? Int == 40)
        #expect(json["expired_consumers"] as? [String] == ["mailer", "fireball_by_year"])
    }

    @Test func replayListsEachViewsEffectOrNoViews() {
        #expect(Self.render { ReplayReport([]).renderText(to: $0) } == "No views.\n")
        #expect(Self.render { ReplayReport([]).renderJSON(to: $0) } == "{}\n")
    }

    @Test func viewRowsAreAPaddedTableJSONObjectsOrCSV() throws {
        let report = ViewRowsReport(columns: ["year", "n"], rows: [[.integer(2024), .real(0.1 + 0.2)], [.integer(2025), .null]])
        #expect(Self.render { report.render(as: .text, to: $0) } == "year  n   \n----  ----\n2024  0.3 \n2025  null\n")
        #expect(Self.render { report.render(as: .csv, to: $0) } == "\"year\",\"n\"\r\n2024,0.30000000000000004\r\n2025,\r\n")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.render { report.render(as: .json, to: $0) }.utf8)) as? [[String: Any]])
        #expect(json.count == 2 && json[0]["year"] as? Int == 2024 && json[1]["n"] is NSNull)
    }

    @Test func confirmationIsASentenceOrOneObject() {
        let confirmation = Confirmation("Cleared 2 reject(s).") { json in
            json.field("cleared", 2)
            json.field("run", Value.null)
        }
        #expect(Self.render { confirmation.render(as: .text, to: $0) } == "Cleared 2 reject(s).\n")
        #expect(Self.render { confirmation.render(as: .json, to: $0) } == "{\"cleared\":2,\"run\":null}\n")
    }
}
