import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Each report format renders the same run: the 2024 sample, then the 2026 snapshot with --sync
/// (3 inserted, 3 updated of which 1 re-keyed, 2 deleted, 5 unchanged; see the text report in Docs/COMMANDS.md).
@Suite struct ReportRendererTests {
    /// The store after both runs, and the second run's report content.
    static func syncRun(_ directory: TemporaryDirectory) throws -> (Store, ReportContent) {
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let store = try Store(path: path)
        let session = ImportSession(store: store, model: FireballModel.model, options: ImportOptions(author: "nightly", context: "run", sync: true))
        let result = try session.run([FeedInput(path: sample("fireball-2026.json"), mapping: FireballModel.apiFeed)])
        return (store, try store.read { try ReportContent(run: result, storePath: store.path, in: $0) })
    }

    static func render(_ format: ReportFormat, _ content: ReportContent, _ store: Store) throws -> String {
        let sink = OutputSink.memory()
        try store.read { try ReportWriter(store: store, snapshot: $0).write(content, as: format, to: sink) }
        return sink.memoryText
    }

    @Test func textNamesTheTransactionCountsViewsAndChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let lines = try Self.render(.text, content, store).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("Transaction 2 (token ") && lines[0].contains(") by nightly at "))
        #expect(lines[1] == "Fireball: 3 inserted, 3 updated, 2 deleted, 5 unchanged, 0 duplicates, 0 rejected (1 of the updates re-keyed)")
        #expect(lines.contains("  ~ Fireball 2023-04-11 14:52:09 → 2023-04-11 14:52:10 (re-keyed)"))
        #expect(lines.contains("  ~ Fireball 2024-07-21 08:12:05  energy: 2.1 → 2.4; impact_energy: 0.076 → 0.085"))
        #expect(lines.contains("  - Fireball 2021-10-01 05:48:11  (energy=0.9 impact_energy=0.036 latitude=-8.7 longitude=173.3)"))
        #expect(lines.filter { $0.hasPrefix("  + ") || $0.hasPrefix("  ~ ") || $0.hasPrefix("  - ") }.count == 8)
    }

    @Test func jsonIsTheDocumentedContract() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.render(.json, content, store).utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["transaction", "dry_run", "totals", "entities", "changes", "views", "rejects", "warnings", "errors"])
        #expect(json["dry_run"] as? Bool == false)
        let totals = try #require(json["totals"] as? [String: Int])
        #expect(totals == ["inserted": 3, "updated": 3, "deleted": 2, "unchanged": 5, "rejected": 0, "duplicates": 0, "rekeyed": 1])
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.count == 8)
        let update = try #require(changes.first { $0["type"] as? String == "update" && ($0["key"] as? [String: String])?["date"] == "2024-07-21 08:12:05" })
        let changed = try #require(update["changed"] as? [String: [String: Double]])
        #expect(changed["energy"] == ["old": 2.1, "new": 2.4])
        #expect((json["transaction"] as? [String: Any])?["author"] as? String == "nightly")
    }

    @Test func ndjsonIsAHeaderOneLinePerChangeAndAFooter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let lines = try Self.render(.ndjson, content, store).split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 10)
        #expect(lines.first??["record"] as? String == "header")
        #expect(lines.last??["record"] as? String == "footer")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0?["token"] as? String == content.transactions.first?.token })
    }

    @Test func markdownHasTheSummaryAndChangesTables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let text = try Self.render(.markdown, content, store)
        #expect(text.hasPrefix("# importer run: transaction 2 (s.sqlite from fireball-2026.json)\n"))
        #expect(text.contains("| Fireball | 3 | 3 | 2 | 5 | 0 | 0 |\n| **total** | 3 | 3 | 2 | 5 | 0 | 0 |"))
        #expect(text.contains("| 2 | Fireball | date=2023-04-11 14:52:10 | update (re-keyed) | date: 2023-04-11 14:52:09 → 2023-04-11 14:52:10 |"))
        #expect(text.contains("| 2 | Fireball | date=2024-07-21 08:12:05 | update | energy: 2.1 → 2.4; impact_energy: 0.076 → 0.085 |"))
        #expect(text.components(separatedBy: "\n| 2 | Fireball |").count - 1 == 8)
    }

    @Test func csvHasOneRowPerChangedAttribute() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let rows = try Self.render(.csv, content, store).split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        #expect(rows[0] == "token,transaction,entity,key,type,attribute,old,new")
        let updates = rows.filter { $0.contains(#","update","#) }
        #expect(updates.count == 4, "\(updates)")
        #expect(updates.contains { $0.hasSuffix(#","Fireball","date=2024-07-21 08:12:05","update","energy",2.1,2.4"#) })
    }

    @Test func htmlIsOnePageWithChartsAndTheChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, content) = try Self.syncRun(directory)
        let html = try Self.render(.html, content, store)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>importer run: transaction 2 (s.sqlite from fireball-2026.json)</title>"))
        #expect(html.contains("<svg class=\"chart\" id=\"chart-changes\""))
        #expect(!html.contains("<script src") && !html.contains("<link rel=\"stylesheet\" href"))
    }

    @Test func aRefusedRunSaysSoInEveryFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let store = try Store(path: path)
        let session = ImportSession(store: store, model: FireballModel.model, options: ImportOptions(author: "t", context: "run", sync: true))
        let result = try session.run([FeedInput(path: sample("fireball-empty.json"), mapping: FireballModel.apiFeed)])
        let content = try store.read { try ReportContent(run: result, storePath: store.path, in: $0) }
        #expect(content.transactions.isEmpty && content.errors.count == 2)
        #expect(try Self.render(.text, content, store).hasPrefix("Refused; nothing was written."))
        #expect(try Self.render(.markdown, content, store).contains("## Refused\n\n- "))
        #expect(try Self.render(.html, content, store).contains("<h2>Refused: nothing was written</h2>"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.render(.json, content, store).utf8)) as? [String: Any])
        #expect((json["errors"] as? [String])?.count == 2 && json["transaction"] is NSNull)
    }
}
