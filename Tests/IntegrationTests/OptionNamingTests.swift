import ImporterTestSupport
import Foundation
import Testing

/// One option scheme kept by every command (Docs/COMMANDS.md, "Options"): `--store` wherever a store is
/// touched, `--format` for standard output, `--report`/`--output` for files, `--mapping` for the
/// model's feed mapping, `--view` for a view name.
@Suite struct OptionNamingTests {
    /// Every command that reads or writes a store, as its words.
    static let storeCommands: [[String]] = [
        ["run"], ["check"], ["undo"], ["export"], ["history", "list"], ["history", "purge"], ["report"], ["query"],
        ["consumers", "add"], ["consumers", "list"], ["consumers", "remove"], ["consumers", "reset"], ["replay"],
        ["views", "list"], ["views", "show"], ["views", "rebuild"], ["views", "verify"], ["watch"], ["deliver"],
        ["rejects", "list"], ["rejects", "show"], ["rejects", "clear"], ["status"],
    ]

    @Test func everyCommandThatTouchesAStoreTakesStore() throws {
        for words in Self.storeCommands {
            let help = try importer(words + ["--help"])
            #expect(help.status == 0, "\(words): \(help.stderr)")
            #expect(help.stdout.contains("--store <path>"), "\(words.joined(separator: " ")) --help has no --store")
        }
    }

    @Test func checkTakesStoreAndChecksTheModelAgainstIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let text = try importer(["check", "--store", store, sample("fireball-2026.json")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("store \(store): accepts the model (Fireball: 10 records held)"))
        let json = try #require(try importer(["check", "--store", store, "--format", "json", sample("fireball-2026.json")]).json as? [String: Any])
        #expect(((json["store"] as? [String: Any])?["records"] as? [String: Any])?["Fireball"] as? Int == 10)
        // A store that does not exist yet (a new cron setup) is checked as empty, and not created.
        let missing = try importer(["check", "--store", directory.path("nope.sqlite"), sample("fireball-2026.json")])
        #expect(missing.status == 0, "\(missing.stderr)")
        #expect(missing.stdout.contains("store \(directory.path("nope.sqlite")): does not exist yet; checked as empty"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("nope.sqlite")))
        let missingJSON = try #require(try importer(["check", "--store", directory.path("nope.sqlite"), "--format", "json", sample("fireball-2026.json")]).json as? [String: Any])
        #expect((missingJSON["store"] as? [String: Any])?["exists"] as? Bool == false)
        // The store is unchanged by a check.
        let digest = try sha256(store)
        _ = try importer(["check", "--store", store, sample("fireball-2026.json")])
        #expect(try sha256(store) == digest)
    }

    @Test func mappingNamesTheFeedMappingAndFeedStillWorks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let help = try importer(["run", "--help"]).stdout
        #expect(help.contains("--mapping <name>"))
        #expect(!help.contains("--feed <"))
        let unknown = try importer(["check", "--mapping", "nope", sample("fireball-2024.json")])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("unknown feed mapping 'nope' (the model has: fireball-api)"))
        let named = try importer(["check", "--mapping", "fireball-api", sample("fireball-2024.json")])
        #expect(named.status == 0, "\(named.stderr)")
        let former = try importer(["check", "--feed", "fireball-api", sample("fireball-2024.json")])
        #expect(former.status == 0, "\(former.stderr)")
    }

    @Test func replayTakesViewAndTheFormerConsumerSpelling() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["replay", "--help"]).stdout.contains("--view <name>"))
        for option in ["--view", "--consumer"] {
            let replay = try importer(["replay", "--store", store, option, "fireball_by_year", "--format", "json"])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect((replay.json as? [String: Any])?.keys.sorted() == ["fireball_by_year"])
        }
    }

    @Test func formatIsStandardOutputBesideReportFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--format", "json", "--report", "html", "--output", directory.path("run.html"), sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.json as? [String: Any])?["totals"] != nil)
        #expect(try String(contentsOfFile: directory.path("run.html"), encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let twice = try importer(["history", "--store", store, "--format", "json", "--report", "csv"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("--report csv has no --output FILE"))
    }

    @Test func everyCommandsHelpShowsExamplesThatFitTheTerminal() throws {
        let top = try importer(["--help"]).stdout
        #expect(top.contains("Getting started:") && top.contains("Options mean the same in every command"))
        for words in Self.storeCommands + [["model", "show"], ["model", "check"], ["consumers"], ["views"], ["model"]] {
            let help = try importer(words + ["--help"]).stdout
            #expect(help.contains("Example"), "\(words.joined(separator: " ")) --help has no example")
            // Examples are whole lines at 80 columns (ArgumentParser wraps longer ones), and real
            // commands (no placeholder tokens).
            let examples = help.components(separatedBy: "\n").filter { $0.hasPrefix("  importer ") || $0.hasPrefix("  count=") }
            #expect(!examples.isEmpty, "\(words)")
            #expect(!help.contains("AQ3k"), "\(words): a placeholder token")
        }
    }
}
