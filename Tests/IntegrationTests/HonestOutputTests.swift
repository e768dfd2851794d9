import ImporterTestSupport
import Foundation
import Testing

/// Output that says what happened: dry runs marked in every format with no token printed,
/// tolerated rejects said on standard error, an HTML report whose charts, numbers, views and
/// title tell the truth.
@Suite struct HonestOutputTests {
    /// A store holding the 2024 sample; returns its path and the token of its transaction 1.
    private func store2024(_ directory: TemporaryDirectory) throws -> (String, String) {
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--format", "json", sample("fireball-2024.json")])
        let token = try #require(((run.json as? [String: Any])?["transaction"] as? [String: Any])?["token"] as? String)
        return (store, token)
    }

    @Test func aDryRunIsMarkedInEveryFormatAndPrintsNoToken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, token) = try store2024(directory)
        // Every token of this store starts with the version byte and the store id.
        let storePrefix = String(token.prefix(20))
        func dry(_ format: String) throws -> String {
            let run = try importer(["run", "--store", store, "--sync", "--dry-run", "--format", format, sample("fireball-2026.json")])
            #expect(run.status == 0, "\(format): \(run.stderr)")
            #expect(!run.stdout.contains(storePrefix), "\(format) prints a token: \(run.stdout.prefix(300))")
            return run.stdout
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try dry("json").utf8)) as? [String: Any])
        #expect(json["dry_run"] as? Bool == true)
        #expect((json["transaction"] as? [String: Any])?["token"] is NSNull)
        let ndjson = try dry("ndjson").split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(ndjson.first?["dry_run"] as? Bool == true)
        #expect(ndjson.dropFirst().dropLast().allSatisfy { $0["token"] is NSNull })
        #expect(try dry("text").hasPrefix("Dry run — nothing was written. What the run would have done:\nTransaction 2 (not written, no token)"))
        #expect(try dry("markdown").hasPrefix("# importer run: dry run — nothing was written (s.sqlite from fireball-2026.json)\n"))
        #expect(try dry("html").contains("<title>importer run: dry run — nothing was written (s.sqlite from fireball-2026.json)</title>"))
        #expect(try dry("csv").split(separator: "\r\n").dropFirst().allSatisfy { $0.hasPrefix(#""",2,"#) })
        // A real run afterwards prints its token.
        let real = try importer(["run", "--store", store, "--sync", "--format", "json", sample("fireball-2026.json")])
        #expect(real.stdout.contains(storePrefix))
        let undo = try importer(["undo", "--last", "--dry-run", "--format", "json", "--store", store])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect((undo.json as? [String: Any])?["dry_run"] as? Bool == true)
        #expect(!undo.stdout.contains("\"token\":\"" + storePrefix))
        #expect(try importer(["undo", "--last", "--dry-run", "--store", store]).stdout.hasPrefix("Dry run — nothing was written."))
    }

    /// A dry run on a store that does not exist works on a temporary one and leaves nothing
    /// behind: no store, no WAL, no writer lock file in `$TMPDIR`.
    @Test func aDryRunOnANewStoreLeavesNoFileBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let temporary = directory.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let store = directory.path("new.sqlite")
        let dry = try importer(["run", "--store", store, "--dry-run", sample("fireball-2024.json")], environment: ["TMPDIR": temporary])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    @Test func toleratedRejectsAreSaidOnStandardError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let arguments = ["run", "--store", store, "--model", sample("models/fireball-ndjson.yaml"), "--max-rejects", "5", sample("rejects/fireball-2024-rejects.ndjson")]
        let dry = try importer(arguments + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("3 records rejected (dry run: not kept)"), "\(dry.stderr)")
        let run = try importer(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("3 records rejected, kept in the store: importer rejects show 1 --store \(store)"), "\(run.stderr)")
        // The command it names works as printed.
        let shown = try importer(["rejects", "show", "1", "--store", store])
        #expect(shown.status == 0)
        #expect(shown.stdout.split(separator: "\n").count == 3)
        #expect(try importer(arguments + ["--quiet"]).stderr.isEmpty, "--quiet logs errors only")
    }

    @Test func theHTMLReportsChartsNumbersViewsAndTitleTellTheTruth() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, first) = try store2024(directory)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        let html = try importer(["report", "--store", store, "--format", "html"]).stdout
        #expect(html.contains("<title>importer history: transactions 1–2 (s.sqlite from fireball-2024.json, fireball-2026.json)</title>"))
        // Regions are separate categories: the sum is drawn as bars, not as a line across them.
        let regions = try #require(html.components(separatedBy: "id=\"view-fireball_by_region\"").dropFirst().first?.components(separatedBy: "</svg>").first)
        #expect(!regions.contains("<path"))
        #expect(regions.contains("<g class=\"bars sum\">"))
        // Years are a continuous range: the sum stays a line.
        let years = try #require(html.components(separatedBy: "id=\"view-fireball_by_year\"").dropFirst().first?.components(separatedBy: "</svg>").first)
        #expect(years.contains("<g class=\"line sum\"><path"))
        #expect(html.firstMatch(of: /\d\.\d{13,}/) == nil, "a number with floating-point noise")
        // A report of an old range says the views are shown as they are now.
        let old = try importer(["report", "--store", store, "--after", first, "--through", first, "--format", "html"]).stdout
        #expect(old.contains("The views are shown as they are now (through transaction 2), not as they stood at the end of this report (transaction 1)."))
        let oldest = try importer(["report", "--store", store, "--since", "2000-01-01", "--through", first, "--format", "html"]).stdout
        #expect(oldest.contains("id=\"views-current\""))
        #expect(!html.contains("id=\"views-current\""))
    }
}
