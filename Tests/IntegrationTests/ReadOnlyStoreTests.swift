import ImporterTestSupport
import Foundation
import Testing

/// A store this user may not write: reading commands work, writing ones exit 77 naming the store.
@Suite struct ReadOnlyStoreTests {
    /// Runs `arguments` in `directory` as a user who may read but not write it: as root, the
    /// unprivileged `nobody` through setpriv (with a copy of the binary and the feeds it names, so
    /// that nothing outside the directory needs to be readable to it); otherwise the directory and
    /// its files are made read-only for the duration of the call.
    static func asAnotherUser(_ arguments: [String], in directory: TemporaryDirectory) throws -> Execution {
        var arguments = arguments
        for (index, argument) in arguments.enumerated() where argument.hasPrefix(repositoryRoot.path) {
            let copy = directory.path(URL(fileURLWithPath: argument).lastPathComponent)
            if !FileManager.default.fileExists(atPath: copy) { try FileManager.default.copyItem(atPath: argument, toPath: copy) }
            arguments[index] = URL(fileURLWithPath: copy).lastPathComponent
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        if getuid() == 0 {
            let binary = directory.path("importer-copy")
            if !FileManager.default.fileExists(atPath: binary) { try FileManager.default.copyItem(atPath: importerBinary, toPath: binary) }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
            for file in files + ["importer-copy"] {
                try FileManager.default.setAttributes([.posixPermissions: file == "importer-copy" ? 0o755 : 0o644], ofItemAtPath: directory.path(file))
            }
            return try importer(arguments, directory: directory.url, launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary])
        }
        for file in files { try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory.path(file)) }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.url.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
            for file in files { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.path(file)) }
        }
        return try importer(arguments, directory: directory.url)
    }

    @Test func readingCommandsServeAReadOnlyStoreAndWritingOnesExit77() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try #require(try importer(["run", "--store", "fireballs.sqlite", sample("fireball-2024.json")], directory: directory.url).status == 0)
        try #require(try importer(["consumers", "add", "mailer", "--store", "fireballs.sqlite"], directory: directory.url).status == 0)
        let before = try sha256(directory.path("fireballs.sqlite"))
        let reads: [[String]] = [["status"], ["history", "--format", "json"], ["report"], ["views", "show", "fireball_by_year"], ["views", "list"],
                                 ["views", "verify"], ["consumers", "list"], ["rejects", "list"], ["history", "--consumer", "mailer"]]
        for read in reads {
            let execution = try Self.asAnotherUser(read + ["--store", "fireballs.sqlite"], in: directory)
            #expect(execution.status == 0, "\(read): \(execution.stderr)")
        }
        let status = try Self.asAnotherUser(["status", "--store", "fireballs.sqlite"], in: directory)
        #expect(status.stdout.contains("Fireball (table fireball): 10 records"))
        let writes: [[String]] = [["run", sample("fireball-2026.json")], ["replay"], ["views", "rebuild", "fireball_by_year"], ["consumers", "add", "other"],
                                  ["consumers", "reset", "mailer", "--to", "now"], ["history", "purge"], ["rejects", "clear"], ["history", "--consumer", "mailer", "--ack"]]
        for write in writes {
            let execution = try Self.asAnotherUser(write + ["--store", "fireballs.sqlite"], in: directory)
            #expect(execution.status == 77, "\(write): \(execution.status) \(execution.stderr)")
            #expect(execution.stderr.contains("store fireballs.sqlite cannot be written"), "\(write): \(execution.stderr)")
        }
        let create = try Self.asAnotherUser(["run", "--store", "new.sqlite", sample("fireball-2026.json")], in: directory)
        #expect(create.status == 77, "\(create.stderr)")
        #expect(create.stderr.contains("store new.sqlite cannot be written: Permission denied"))
        #expect(try sha256(directory.path("fireballs.sqlite")) == before)
    }
}
