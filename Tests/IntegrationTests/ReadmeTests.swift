import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// The README and the reference documents are executable: every `sh` block of a document runs as
/// written, in order, in one shell in a temporary directory holding `SampleData/`, with the built
/// binary as `importer` on the PATH.
/// Each command must exit 0, or the code its comment names (`# exit N`); a `text output` block
/// right after an `sh` block is what that block's last command prints (tokens and times aside).
/// Blocks marked `sh no-run` are only shown.
@Suite struct ReadmeTests {
    struct Block {
        var info: String
        var lines: [String]
        /// The document's line of the opening fence.
        var line: Int
    }

    /// The documents whose shell blocks run.
    static let documents = ["README.md", "Docs/COMMANDS.md", "Docs/STORE.md", "Docs/OPERATIONS.md", "Docs/MAPPING.md", "Docs/MODEL.md"]

    /// How many commands a document runs at least (so that a broken fence cannot pass by running
    /// nothing); a document not named here may show only `sh no-run` blocks.
    static let minimumCommands = ["README.md": 4, "Docs/COMMANDS.md": 31, "Docs/OPERATIONS.md": 3, "Docs/MAPPING.md": 4]

    static func blocks(in document: String = "README.md") throws -> [Block] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
        var blocks: [Block] = []
        var open: Block?
        for (index, line) in readme.components(separatedBy: "\n").enumerated() {
            guard line.hasPrefix("```") else {
                open?.lines.append(line)
                continue
            }
            if let block = open {
                blocks.append(block)
                open = nil
            } else {
                open = Block(info: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), lines: [], line: index + 1)
            }
        }
        return blocks
    }

    /// One command of a block, with what it must do.
    struct Command {
        var text: String
        var line: Int
        var document = "README.md"
        var expectedStatus: Int32
        /// The `text output` block that follows, for the last command of a block.
        var output: [String]?
    }

    static func commands(in document: String = "README.md") throws -> [Command] {
        let blocks = try blocks(in: document)
        #expect(blocks.allSatisfy { !$0.info.isEmpty }, "every code block names what it is (sh, sh no-run, text, json, yaml…)")
        var commands: [Command] = []
        for (index, block) in blocks.enumerated() where block.info == "sh" {
            for (offset, text) in block.lines.enumerated() {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                let status = text.firstMatch(of: /#\s*exit (\d+)\s*$/).flatMap { Int32($0.output.1) } ?? 0
                commands.append(Command(text: text, line: block.line + offset + 1, document: document, expectedStatus: status))
            }
            if index + 1 < blocks.count, blocks[index + 1].info == "text output", !commands.isEmpty {
                commands[commands.count - 1].output = blocks[index + 1].lines
            }
        }
        return commands
    }

    @Test(arguments: documents) func everyShellExampleRunsAsWritten(document: String) throws {
        let commands = try Self.commands(in: document)
        try #require(commands.count >= Self.minimumCommands[document, default: 0])
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let work = directory.url.appendingPathComponent("work")
        let results = directory.url.appendingPathComponent("results")
        let bin = directory.url.appendingPathComponent("bin")
        for folder in [work, results, bin] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: work.appendingPathComponent("SampleData").path, withDestinationPath: sample(""))
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("importer").path, withDestinationPath: importerBinary)
        // One shell for the whole document: each command's output and status go to files of its own.
        var script = "cd '\(work.path)'\n"
        for (index, command) in commands.enumerated() {
            script += "{ \(command.text)\n} > '\(results.path)/\(index).out' 2> '\(results.path)/\(index).err' < /dev/null\n"
            script += "echo $? > '\(results.path)/\(index).status'\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", "-c", script]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for key in ["IMPORTER_STORE", "IMPORTER_AUTHOR"] { environment.removeValue(forKey: key) }
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        for (index, command) in commands.enumerated() {
            func read(_ suffix: String) -> String {
                (try? String(contentsOf: results.appendingPathComponent("\(index).\(suffix)"), encoding: .utf8)) ?? ""
            }
            let status = Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            #expect(status == command.expectedStatus, "\(document):\(command.line): `\(command.text)` exited \(status): \(read("err"))")
            if let output = command.output { Self.check(output, in: read("out"), command: command) }
        }
    }

    /// Every line of an output block is printed (up to a token or a time, which differ per run;
    /// a line holding `…` is an elision).
    static func check(_ expected: [String], in output: String, command: Command) {
        let printed = output.components(separatedBy: "\n")
        for line in expected where !line.isEmpty && !line.contains("…") {
            let stable = line.components(separatedBy: "(token ").first ?? line
            #expect(printed.contains { $0.hasPrefix(stable) }, "\(command.document):\(command.line): `\(command.text)` does not print '\(stable)'; it printed:\n\(output)")
        }
    }

    @Test(arguments: documents) func blocksNotMeantToRunAreMarked(document: String) throws {
        for block in try Self.blocks(in: document) where block.info.hasPrefix("sh") {
            let text = block.lines.joined(separator: "\n")
            // Downloads, installs, and commands that never return are not run by the test.
            if text.contains("curl ") || text.contains("make ") || text.contains("importer watch") {
                #expect(block.info == "sh no-run", "\(document):\(block.line) should be marked no-run")
            }
        }
    }

    @Test func theModelExampleIsAValidModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let yaml = try #require(try Self.blocks(in: "Docs/MODEL.md").first { $0.info == "yaml" })
        try yaml.lines.joined(separator: "\n").write(toFile: directory.path("model.yaml"), atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", directory.path("model.yaml")])
        #expect(check.status == 0, "Docs/MODEL.md:\(yaml.line): \(check.stderr)")
    }

    /// The store's documentation quotes what SQLite says to another program writing an entity table.
    @Test func externalWritesFailWithTheQuotedMessages() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let document = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/STORE.md"), encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        let connection = try SQLiteConnection(path: store)
        for sql in ["UPDATE fireball SET energy = 1", "INSERT INTO fireball(date) VALUES ('2000-01-01 00:00:00')", "DELETE FROM fireball"] {
            do {
                try connection.execute(sql)
                Issue.record("\(sql) succeeded")
            } catch {
                let message = error.message.components(separatedBy: " (in:").first ?? error.message
                #expect(document.contains("\"\(message)\"") || document.contains(message.replacingOccurrences(of: ": ", with: ": ")), "\(sql): '\(message)' is not quoted in Docs/STORE.md")
            }
        }
    }
}
