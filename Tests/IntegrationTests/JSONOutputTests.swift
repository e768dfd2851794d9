import ImporterTestSupport
import Foundation
import Testing

/// Every command that prints something a script may read takes `--format json` (and `views show`
/// also `--format csv`), and says what it did.
@Suite struct JSONOutputTests {
    private func json(_ arguments: [String], status: Int32 = 0) throws -> [String: Any] {
        let execution = try importer(arguments)
        #expect(execution.status == status, "\(arguments): \(execution.stderr)")
        return try #require(execution.json as? [String: Any], "\(arguments): \(execution.stdout)")
    }

    @Test func viewsRebuildSaysWhatItBuilt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let text = try importer(["views", "rebuild", "fireball_by_year", "--store", store])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Rebuilt fireball_by_year from 10 Fireball records: 4 groups"), "\(text.stdout)")
        let built = try json(["views", "rebuild", "fireball_by_region", "--store", store, "--format", "json"])
        #expect(built["records"] as? Int == 10)
        #expect(built["groups"] as? Int == 5)
        #expect(built["transaction"] as? Int == 1)
    }

    @Test func storeCommandsPrintJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let verify = try json(["views", "verify", "--store", store, "--format", "json"])
        #expect(verify["match"] as? Bool == true)
        #expect(verify["views"] as? [String] == ["fireball_by_region", "fireball_by_year"])
        let added = try json(["consumers", "add", "mailer", "--store", store, "--format", "json"])
        #expect(added["added"] as? String == "mailer")
        #expect(added["transaction"] as? Int == 1)
        let reset = try json(["consumers", "reset", "mailer", "--to", "beginning", "--store", store, "--format", "json"])
        #expect(reset["transaction"] as? Int == 0)
        #expect(try json(["consumers", "remove", "mailer", "--store", store, "--format", "json"])["removed"] as? String == "mailer")
        #expect(try json(["rejects", "clear", "--store", store, "--format", "json"])["cleared"] as? Int == 0)
        let purged = try json(["history", "purge", "--store", store, "--format", "json"])
        #expect(purged["transactions"] as? Int == 1)
        let replayed = try json(["replay", "--store", store, "--format", "json"])
        #expect(replayed.keys.sorted() == ["fireball_by_region", "fireball_by_year"])
    }

    @Test func modelCheckPrintsJSONValidOrNot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let valid = try json(["model", "check", sample("models/cneos-csv.yaml"), "--format", "json"])
        #expect(valid["valid"] as? Bool == true)
        #expect(valid["feeds"] as? [String] == ["cneos-csv"])
        try "entities: [}".write(toFile: directory.path("bad.yaml"), atomically: true, encoding: .utf8)
        let invalid = try json(["model", "check", directory.path("bad.yaml"), "--format", "json"], status: 78)
        #expect(invalid["valid"] as? Bool == false)
        #expect((invalid["problems"] as? [String])?.first?.hasPrefix(directory.path("bad.yaml") + ":1:") == true)
    }

    @Test func viewsShowWritesCSV() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let csv = try importer(["views", "show", "fireball_by_year", "--store", store, "--format", "csv"])
        #expect(csv.status == 0)
        let lines = csv.stdout.components(separatedBy: "\r\n")
        #expect(lines.first == #""year","count","energy_sum","impact_energy_max","located""#)
        #expect(lines.dropFirst().first?.hasPrefix("2021,1,0.9,0.036,1") == true, "\(csv.stdout)")
        #expect(lines.count == 6)
    }
}
