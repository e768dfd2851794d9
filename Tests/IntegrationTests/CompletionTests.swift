import ImporterTestSupport
import Foundation
import Testing

/// Shell completions complete files where a file is expected (feeds, `--store`, `--model`,
/// `--output`) and the store's view and consumer names where a name is.
@Suite struct CompletionTests {
    private func script(_ shell: String) throws -> String {
        let run = try importer(["--generate-completion-script", shell])
        #expect(run.status == 0)
        return run.stdout
    }

    /// The bash function of one command (`_importer_views_show`).
    private func bashFunction(_ name: String, in script: String) throws -> String {
        try #require(script.components(separatedBy: "\n\(name)() {\n").dropFirst().first?.components(separatedBy: "\n}\n").first, "\(name)")
    }

    @Test func filesAreCompletedWhereAFileIsExpected() throws {
        let bash = try script("bash")
        let run = try bashFunction("_importer_run", in: bash)
        #expect(run.contains("'--store')\n        __importer_add_completions -f"))
        #expect(run.contains("'--model')\n        __importer_add_completions -o plusdirs -fX '!*.@(yaml|yml|json)'"))
        #expect(run.contains("'--output')\n        __importer_add_completions -f"))
        #expect(run.contains("'--rejects')\n        __importer_add_completions -f"))
        // The feeds: every positional word is a file.
        #expect(try #require(run.components(separatedBy: "# Offer positional completions").last).contains("__importer_add_completions -f"))
        let zsh = try script("zsh")
        #expect(zsh.contains("'*:feed:_files'"))
        #expect(zsh.contains(":path:_files'"))
        #expect(zsh.contains(":file:_files -g '\\''*.yaml *.yml *.json'\\''"))
        #expect(zsh.contains("'*--output[") && zsh.contains("]:file:_files'"))
        #expect(try bashFunction("_importer_check", in: bash).contains("'--store')\n        __importer_add_completions -f"))
        #expect(try bashFunction("_importer_model_check", in: bash).contains("-fX '!*.@(yaml|yml|json)'"))
    }

    @Test func viewAndConsumerNamesComeFromTheStore() throws {
        let bash = try script("bash")
        let zsh = try script("zsh")
        for (function, call) in [("_importer_views_show", "---completion views show -- positional@0"),
                                 ("_importer_views_rebuild", "---completion views rebuild -- positional@0"),
                                 ("_importer_replay", "---completion replay -- --view"),
                                 ("_importer_history_list", "---completion history list -- --consumer"),
                                 ("_importer_consumers_reset", "---completion consumers reset -- positional@0"),
                                 ("_importer_watch", "---completion watch -- --consumer")] {
            #expect(try bashFunction(function, in: bash).contains(call), "\(function)")
            #expect(zsh.contains(call), "zsh: \(call)")
        }
        // What the shell gets back: the names in the store that --store names.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        try #require(try importer(["consumers", "add", "mailer", "--store", store]).status == 0)
        let views = try importer(["---completion", "views", "show", "--", "positional@0", "4", "0", "importer", "views", "show", "--store", store, ""])
        #expect(views.stdout.split(separator: "\n") == ["fireball_by_region", "fireball_by_year"], "\(views.stdout) \(views.stderr)")
        let consumers = try importer(["---completion", "watch", "--", "--consumer", "4", "0", "importer", "watch", "--store=\(store)", "--consumer", ""])
        #expect(consumers.stdout.split(separator: "\n") == ["mailer"], "\(consumers.stdout) \(consumers.stderr)")
        let none = try importer(["---completion", "views", "show", "--", "positional@0", "4", "0", "importer", "views", "show", "--store", directory.path("absent.sqlite"), ""])
        #expect(none.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }
}
