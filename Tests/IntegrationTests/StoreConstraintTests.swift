import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

/// A constraint or trigger added to an SQLite store by hand (the model does not declare it) that
/// refuses a record's write is the feed's fault as far as the store is concerned: exit 65, the
/// record located, the database's words, and the store left exactly as it was.
@Suite struct StoreConstraintTests {
    /// A store holding notes 1 and 2, with `sql` run on it afterwards; its path and its digest.
    private static func store(in directory: TemporaryDirectory, adding sql: String) throws -> (path: String, model: String) {
        let model = directory.path("notes.yaml")
        try ReportFormatsTests.notesModel.write(toFile: model, atomically: true, encoding: .utf8)
        let store = directory.path("s.sqlite")
        try """
            {"number":1,"kind":"k","body":"first","label":"a"}
            {"number":2,"kind":"k","body":"second","label":"b"}

            """.write(toFile: directory.path("base.ndjson"), atomically: true, encoding: .utf8)
        let base = try importer(["run", "--store", store, "--model", model, directory.path("base.ndjson")])
        try #require(base.status == 0, "\(base.stderr)")
        let connection = try SQLiteConnection(path: store, create: false)
        try connection.execute(sql)
        return (store, model)
    }

    private static func write(_ lines: [String], to path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A unique index on a non-key attribute: the new record repeating a stored body is named
    /// by line and record; nothing of the feed is stored (not even its first, good record).
    @Test func aUniqueIndexRefusingANewRecordNamesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, model) = try Self.store(in: directory, adding: "CREATE UNIQUE INDEX note_body ON note (body)")
        let before = try StoreDigest.of(store)
        let feed = directory.path("next.ndjson")
        try Self.write([#"{"number":3,"kind":"k","body":"third","label":"c"}"#, #"{"number":4,"kind":"k","body":"first","label":"d"}"#], to: feed)
        let run = try importer(["run", "--store", store, "--model", model, feed])
        #expect(run.status == 65, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("\(feed):2:1 (record 1): the store refused this record: UNIQUE constraint failed: note.body "
            + "(a constraint or trigger of the store that the model does not declare); nothing was imported"), "\(run.stderr)")
        #expect(try StoreDigest.of(store) == before)
    }

    /// A trigger refusing an update: the changed stored record is named; the store is unchanged.
    @Test func aTriggerRefusingAnUpdateNamesTheRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, model) = try Self.store(in: directory, adding: """
            CREATE TRIGGER note_frozen BEFORE UPDATE OF body ON note WHEN old.number = 2
            BEGIN SELECT RAISE(ABORT, 'note 2 is frozen'); END
            """)
        let before = try StoreDigest.of(store)
        let feed = directory.path("next.ndjson")
        try Self.write([#"{"number":1,"kind":"k","body":"first again","label":"a"}"#, #"{"number":2,"kind":"k","body":"thawed","label":"b"}"#], to: feed)
        let run = try importer(["run", "--store", store, "--model", model, feed])
        #expect(run.status == 65, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("\(feed):2:1 (record 1): the store refused this record: note 2 is frozen"), "\(run.stderr)")
        #expect(try StoreDigest.of(store) == before)
        // The same feed without the change the trigger refuses goes through.
        try Self.write([#"{"number":1,"kind":"k","body":"first again","label":"a"}"#, #"{"number":2,"kind":"k","body":"second","label":"b"}"#], to: feed)
        let again = try importer(["run", "--store", store, "--model", model, feed])
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// A trigger refusing deletes: `--sync` names its deletes as what was refused.
    @Test func aTriggerRefusingSyncDeletesSaysSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, model) = try Self.store(in: directory, adding: """
            CREATE TRIGGER note_kept BEFORE DELETE ON note BEGIN SELECT RAISE(ABORT, 'notes are never deleted'); END
            """)
        let before = try StoreDigest.of(store)
        let feed = directory.path("next.ndjson")
        try Self.write([#"{"number":1,"kind":"k","body":"first","label":"a"}"#], to: feed)
        let run = try importer(["run", "--sync", "--max-delete", "100%", "--store", store, "--model", model, feed])
        #expect(run.status == 65, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("the store refused the sync deletes of Note (records no feed holds): notes are never deleted"), "\(run.stderr)")
        #expect(try StoreDigest.of(store) == before)
    }
}
