import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// `importer undo`: the exact inverse of a transaction, as a new one; refused when later ones
/// changed the same records (unless cascaded), when the history is purged, or when a key is taken.
@Suite struct UndoTests {
    /// Every column of every record, in id order (ids and the guard column included).
    static func table(_ store: String) throws -> [[Value]] {
        try SQLiteConnection(path: store, create: false).rows("SELECT * FROM fireball ORDER BY id")
    }

    @Test func undoingASyncRestoresTheTableExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try Self.table(store)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        let undo = try importer(["undo", "--store", store, "--last", "--format", "json"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Self.table(store) == before)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let transaction = try #require(((undo.json as? [String: Any])?["transactions"] as? [[String: Any]])?.first)
        #expect(transaction["author"] as? String == "undo")
        #expect((transaction["context"] as? String)?.hasPrefix("undo A") == true)
        #expect((transaction["totals"] as? [String: Int])?["inserted"] == 2)
        // Undo the undo: the sync's state again.
        try #require(try importer(["undo", "--store", store, "--last"]).status == 0)
        #expect(try Self.table(store).count == 11)
    }

    @Test func laterChangesRefuseAnUndoUnlessCascaded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let first = try Self.table(store)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        // Back to the 2024 values without --sync: record 2024-07-21 08:12:05, updated by the sync, changes again.
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let history = try #require((try importer(["history", "--store", store, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]])
        let tokens = history.compactMap { $0["token"] as? String }
        try #require(tokens.count == 3)
        let before = try sha256(store)
        let refused = try importer(["undo", tokens[1], "--store", store])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("later transactions changed the same records (\(tokens[2]))"), "\(refused.stderr)")
        #expect(try sha256(store) == before)
        let cascaded = try importer(["undo", tokens[1], "--cascade", "--store", store])
        #expect(cascaded.status == 0, "\(cascaded.stderr)")
        #expect(try Self.table(store) == first)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }

    @Test func aDryRunWritesNothingAndPurgedHistoryCannotBeUndone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        let before = try sha256(store)
        let dry = try importer(["undo", "--last", "--dry-run", "--store", store])
        #expect(dry.status == 0)
        #expect(dry.stdout.contains("Transaction 3"))
        #expect(try sha256(store) == before)
        try #require(try importer(["history", "purge", "--store", store, "--before", "2999-01-01", "--force"]).status == 0)
        let purged = try importer(["undo", "--last", "--store", store])
        #expect(purged.status == 3)
        #expect(purged.stderr.contains("transaction 2 cannot be undone, its history was purged"))
    }

    @Test func aDeletedRecordWhoseKeyIsTakenCannotComeBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        try #require(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        // 2021-10-01 05:48:11, deleted by the sync, arrives again as a new record (touching nothing else).
        let again = #"{"signature":{"version":"1.2"},"count":"1","fields":["date","energy","impact-e"],"data":[["2021-10-01 05:48:11","0.9","0.036"]]}"#
        try again.write(toFile: directory.path("again.json"), atomically: true, encoding: .utf8)
        try #require(try importer(["run", "--store", store, directory.path("again.json")]).status == 0)
        let history = try #require((try importer(["history", "--store", store, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]])
        let sync = try #require(history[1]["token"] as? String)
        let id = try #require(try SQLiteConnection(path: store, create: false).integer("SELECT id FROM fireball WHERE date = '2021-10-01 05:48:11'"))
        let refused = try importer(["undo", sync, "--store", store])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("cannot restore the deleted Fireball 2021-10-01 05:48:11: record \(id) holds that key now"), "\(refused.stderr)")
    }
}

/// Bad values for undo and export: usage errors that name the problem, the store untouched.
@Suite struct UndoAndExportUsageTests {
    @Test func badTokensEntitiesAndOptionsAreUsageErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        let cases: [([String], String)] = [
            (["undo", "not-a-token"], "invalid token 'not-a-token'"),
            (["undo"], "give a TOKEN or --last"),
            (["export", "--as-of", "yesterday-ish"], "--as-of: 'yesterday-ish' is neither a token nor a date"),
            (["export", "--as-of", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], "invalid token 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'"),
            (["export", "--entity", "Comet"], "unknown entity 'Comet'"),
            (["export", "--format", "xml"], "xml"),
        ]
        for (arguments, message) in cases {
            let execution = try importer(arguments + ["--store", store])
            #expect(execution.status == 64, "\(arguments): \(execution.status) \(execution.stderr)")
            #expect(execution.stderr.contains(message), "\(arguments): \(execution.stderr)")
        }
        #expect(try sha256(store) == before)
        #expect(try importer(["undo", "--last", "--store", directory.path("absent.sqlite")]).status == 66)
    }
}
