import Foundation
import Testing

/// Bad or unusual inputs give a located error or a documented result, never a silent loss.
@Suite struct BadInputTests {
    /// Text holding U+0000 is stored, compared and reported whole: a change after the NUL is an
    /// update with its history change.
    @Test func textWithNULIsKeptWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = directory.path("notes.yaml")
        try ReportFormatsTests.notesModel.write(toFile: model, atomically: true, encoding: .utf8)
        try #"{"number":1,"kind":"k","body":"a\u0000b","label":"x"}"#.appending("\n").write(toFile: directory.path("a.ndjson"), atomically: true, encoding: .utf8)
        try #"{"number":1,"kind":"k","body":"a\u0000c","label":"x"}"#.appending("\n").write(toFile: directory.path("b.ndjson"), atomically: true, encoding: .utf8)
        #expect(try importer(["run", "--store", store, "--model", model, directory.path("a.ndjson")]).status == 0)
        let run = try importer(["run", "--store", store, "--model", model, "--format", "json", directory.path("b.ndjson")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""changed":{"body":{"old":"a\u0000b","new":"a\u0000c"}}"#), "\(run.stdout)")
        let again = try importer(["run", "--store", store, "--model", model, "--exit-code", directory.path("b.ndjson")])
        #expect(again.status == 1)
    }
}
