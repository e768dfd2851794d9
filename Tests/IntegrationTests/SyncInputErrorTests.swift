import Foundation
import ImporterTestSupport
import Testing

/// Bad input to windowed syncs, delete markers and retypes (issues 45 and 46), each named with
/// its documented exit code, the store untouched: a model check names the model's line (78), a
/// command line its option (64), a bound the scope's type does not read (78).
@Suite struct SyncInputErrorTests {
    /// The built-in model with `edit` applied to it, written to `directory`.
    static func model(_ directory: TemporaryDirectory, _ name: String, _ edit: (String) -> String) throws -> String {
        let shown = try importer(["model", "show"]).stdout
        let edited = edit(shown)
        #expect(edited != shown, "\(name): the edit changed nothing")
        return try directory.write(name, edited)
    }

    static func scoped(_ scope: String) -> (String) -> String {
        { $0.replacingOccurrences(of: "- name: fireball-api\n", with: "- name: fireball-api\n  sync: {scope: \(scope)}\n") }
    }

    @Test func modelsAreCheckedNamingTheProblem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let unknown = try Self.model(directory, "unknown.yaml", Self.scoped("day"))
        let text = try Self.model(directory, "text.yaml") {
            Self.scoped("note")($0).replacingOccurrences(of: "  - name: vx\n", with: "  - name: note\n    type: text\n  - name: vx\n")
        }
        let unmapped = try Self.model(directory, "unmapped.yaml") {
            Self.scoped("note")($0).replacingOccurrences(of: "  - name: vx\n", with: "  - name: note\n    type: real\n  - name: vx\n")
        }
        let noDefault = try Self.model(directory, "retype.yaml") {
            $0.replacingOccurrences(of: "  - name: velocity\n    type: real\n", with: "  - name: velocity\n    type: integer\n    retype-invalid: default\n")
        }
        let marker = try Self.model(directory, "marker.yaml") {
            $0.replacingOccurrences(of: "- name: fireball-api\n", with: "- name: fireball-api\n  delete-marker: {field: deleted, values: true}\n")
        }
        for (model, message) in [
            (unknown, "feed fireball-api: sync: scope 'day' is not an attribute of Fireball"),
            (text, "feed fireball-api: sync: scope 'note' is text: a window needs a date, datetime, integer or real attribute"),
            (unmapped, "feed fireball-api: sync: scope 'note' is not mapped by a field of the feed"),
            (noDefault, "entity Fireball: attribute velocity: retype-invalid: default needs a default: value"),
            (marker, "delete-marker.values: expected a list of values"),
        ] {
            let check = try importer(["model", "check", model])
            #expect(check.status == 78 && check.stderr.contains(message), "\(model): \(check.stderr)")
        }
    }

    /// `--window-from` needs `--sync` (64), and a value the scope's type reads (78); neither
    /// writes anything.
    @Test func windowBoundsAreChecked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("w.sqlite"), model = try Self.model(directory, "scoped.yaml", Self.scoped("date"))
        #expect(try importer(["run", "--store", store, "--model", model, sample("fireball-2024.json")]).status == 0)
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let unsynced = try importer(["run", "--store", store, "--model", model, "--window-from", "2024-01-01", sample("fireball-2026.json")])
        #expect(unsynced.status == 64 && unsynced.stderr.contains("--window-from and --window-to bound a --sync: give --sync too"), "\(unsynced.stderr)")
        let unread = try importer(["run", "--store", store, "--model", model, "--sync", "--window-from", "last tuesday", sample("fireball-2026.json")])
        #expect(unread.status == 78 && unread.stderr.contains("does not read as the datetime of Fireball.date"), "\(unread.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history)
    }
}
