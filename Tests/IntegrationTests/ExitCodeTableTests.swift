import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// The README's exit code table is executable: every row's case is run from a directory holding
/// `fireballs.sqlite`, and must exit with the row's code and print the row's example message.
@Suite struct ExitCodeTableTests {
    struct Row {
        var code: Int32
        var message: String
    }

    /// The rows of the README's "Exit codes" table.
    static func readmeRows() throws -> [Row] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Exit codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        return section.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, let code = Int32(cells[1]) else { return nil }
            let message = cells[3].hasPrefix("`") && cells[3].hasSuffix("`") ? String(cells[3].dropFirst().dropLast()) : cells[3]
            return Row(code: code, message: message)
        }
    }

    @Test func theTableListsEveryExitStatus() throws {
        let codes = try Self.readmeRows().map(\.code)
        #expect(codes == ExitStatus.allCases.map(\.rawValue).sorted())
    }

    @Test func everyRowHappensAsDocumented() throws {
        let rows = try Self.readmeRows()
        try #require(!rows.isEmpty)
        for row in rows {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            try #require(try importer(["run", "--store", "fireballs.sqlite", sample("fireball-2024.json")], directory: directory.url).status == 0)
            let execution = try Self.scenario(row.code, in: directory)
            #expect(execution.status == row.code, "code \(row.code): \(execution.stderr)")
            #expect((execution.stdout + execution.stderr).contains(row.message), "code \(row.code): expected '\(row.message)' in \(execution.stderr)\(execution.stdout)")
        }
    }

    /// Produces `code` in `directory`, whose `fireballs.sqlite` holds the 2024 sample.
    static func scenario(_ code: Int32, in directory: TemporaryDirectory) throws -> Execution {
        func run(_ arguments: [String], stdin: Data? = nil) throws -> Execution {
            try importer(arguments + ["--store", "fireballs.sqlite"], stdin: stdin, directory: directory.url)
        }
        let store = directory.path("fireballs.sqlite")
        switch code {
        case 0: return try run(["views", "verify"])
        case 1: return try run(["run", "--exit-code", sample("fireball-2024.json")])
        case 3:
            try run(["consumers", "add", "late", "--from", "beginning"])
            try run(["run", "--sync", sample("fireball-2026.json")])
            try run(["history", "purge", "--before", "2999-01-01", "--force"])
            return try run(["history", "--consumer", "late"])
        case 64: return try run(["run", "--max-delete", "half", sample("fireball-2026.json")])
        case 65: return try run(["run", "--sync", "-"], stdin: Data(#"{"error":"rate limited"}"#.utf8))
        case 66: return try run(["run", "nope.json"])
        case 69: return try importer(["status", "--store", "postgres://importer:secret@127.0.0.1:1/fireballs"], directory: directory.url)
        case 70:
            try SQLiteConnection(path: store).execute("DROP TABLE fireball_by_region")
            return try run(["views", "rebuild", "fireball_by_region"])
        case 74: return try run(["run", "--report", "json", "--output", "no/such/dir/report.json", sample("fireball-2026.json")])
        case 75:
            let holder = try SQLiteConnection(path: store)
            try holder.execute("BEGIN IMMEDIATE")
            defer { try? holder.execute("ROLLBACK") }
            return try run(["run", "--no-wait", sample("fireball-2026.json")])
        case 77: return try ReadOnlyStoreTests.asAnotherUser(["run", "--store", "fireballs.sqlite", sample("fireball-2026.json")], in: directory)
        case 78:
            try SQLiteConnection(path: store).execute("PRAGMA user_version = 99")
            return try run(["status"])
        case 130, 143:
            return try SignalTests.interruptedRun(signal: code == 130 ? SIGINT : SIGTERM, store: store, directory: directory)
        default:
            Issue.record("no scenario for exit code \(code)")
            return Execution(status: -1, stdout: "", stderr: "")
        }
    }
}
