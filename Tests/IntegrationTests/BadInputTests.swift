import ImporterTestSupport
import Foundation
import Testing

/// Bad or unusual inputs give a located error or a documented result, never a silent loss.
@Suite struct BadInputTests {
    static let header = #"{"signature":{"version":"1.2"},"count":"1","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":["#

    static func row(energy: String) -> String {
        header + #"["2024-01-01 00:00:00",\#(energy),"0.1",null,null,null,null,null,null]]}"#
    }

    static let badFiles: [(Data, String)] = [
        (Data((row(energy: #""1.0""#) + "\u{0}").utf8), "bad.json:1:201: expected JSON text (a NUL byte is not allowed outside strings), found byte 0x00"),
        (Data(row(energy: #""1.0\#u{0}""#).utf8), "bad.json:1:161: expected no raw control character in a string (escape it), found byte 0x00"),
        (Data(header.utf8) + Data([0x5B, 0x22, 0xFF, 0x22]) + Data("]]}".utf8), "bad.json:1:136: expected valid UTF-8, found byte 0xFF"),
        (Data(row(energy: #""1e999""#).utf8), "bad.json:1:157 (record 0, energy): Fireball.energy: expected a number (value: 1e999)"),
        (Data(row(energy: "1e999").utf8), "bad.json:1:157 (record 0, energy): Fireball.energy: expected a number (value: 1e999)"),
        (Data(row(energy: #""NaN""#).utf8), "Fireball.energy: expected a number (value: NaN)"),
        (Data(row(energy: "[[1]]").utf8), "bad.json:1:157 (record 0): row values must be strings, numbers or null"),
        (Data(#"{"count":"1","fields":["when","energy"],"data":[["2024-01-01 00:00:00","1.0"]]}"#.utf8), "the feed does not supply the unique key of Fireball: field(s) date"),
        (Data(#"{"count":"1","fields":["date","date"],"data":[["2024-01-01 00:00:00","1.0"]]}"#.utf8), "bad.json:1:23: field 'date' appears twice in 'fields'"),
        (Data(("{\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + ",\"count\":\"0\"}").utf8), "bad.json:1:518: expected nesting shallower than 512 levels"),
    ]

    /// Each bad file fails with exit 65 and its location; the store is left as it was.
    @Test(arguments: badFiles)
    func badFilesFailWithTheirLocation(content: Data, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try sha256(store)
        try content.write(to: URL(fileURLWithPath: directory.path("bad.json")))
        let run = try importer(["run", "--store", store, "bad.json"], directory: directory.url)
        #expect(run.status == 65)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try sha256(store) == before)
    }

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
