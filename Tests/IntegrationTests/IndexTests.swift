import Foundation
import ImporterTestSupport
import Testing

/// Secondary indexes (`indexes:` on an entity, issue 45.2): built with the entity's table, added
/// and dropped by `importer migrate` (and by a run, like an optional attribute), following a
/// renamed attribute; on both backends.
@Suite struct IndexTests {
    static func indexes(_ store: String, backend: String) throws -> [String] {
        let sql = backend == "postgres"
            ? "SELECT indexdef AS d FROM pg_indexes WHERE indexname LIKE 'importer_idx_%' ORDER BY indexdef"
            : "SELECT sql AS d FROM sqlite_master WHERE type = 'index' AND name LIKE 'importer_idx_%' ORDER BY sql"
        let rows = try importer(["query", "--store", store, "--format", "json", sql]).json as? [[String: Any]] ?? []
        // The columns each index is on, as the database says them.
        return rows.compactMap { ($0["d"] as? String)?.split(separator: "(").last.map { String($0.dropLast()).replacingOccurrences(of: "\"", with: "") } }.sorted()
    }

    @Test(arguments: ["sqlite", "postgres"]) func indexesAreBuiltMigratedAndFollowARename(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let indexed = "  key: [date]\n  indexes: [[impact_energy], [latitude, longitude]]\n"
        let (v1, v2) = try MigrationTests.models(in: directory) { $0.replacingOccurrences(of: "  key: [date]\n", with: indexed) }
        #expect(try importer(["model", "check", v2]).status == 0)
        #expect(try importer(["run", "--store", store, "--model", v1, sample("fireball-2024.json")]).status == 0)
        #expect(try Self.indexes(store, backend: backend).isEmpty)
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan"])
        #expect(plan.stdout.contains("add index on Fireball (impact_energy): the index is built over the 10 stored record(s)")
                && plan.stdout.contains("add index on Fireball (latitude, longitude)"), "\(plan.stdout)")
        #expect(try importer(["migrate", "--store", store, "--model", v2]).status == 0)
        #expect(try Self.indexes(store, backend: backend) == ["impact_energy", "latitude, longitude"])
        // One index less, and impact_energy renamed: the other index follows the name.
        let v3 = try directory.write("v3.yaml", try String(contentsOfFile: v2, encoding: .utf8)
            .replacingOccurrences(of: "[[impact_energy], [latitude, longitude]]", with: "[[impact_kt]]")
            .replacingOccurrences(of: "  - name: impact_energy\n", with: "  - name: impact_kt\n    renamed-from: impact_energy\n")
            .replacingOccurrences(of: "attribute: impact_energy\n", with: "attribute: impact_kt\n")
            .replacingOccurrences(of: "tombstone: [date, energy, impact_energy,", with: "tombstone: [date, energy, impact_kt,"))
        let migrated = try importer(["migrate", "--store", store, "--model", v3])
        #expect(migrated.status == 0 && migrated.stdout.contains("drop index on Fireball (latitude, longitude)") && !migrated.stdout.contains("add index"),
                "\(migrated.stdout)\(migrated.stderr)")
        #expect(try Self.indexes(store, backend: backend) == ["impact_kt"])
        // A run with a model that adds one builds it, as it adds an optional attribute.
        let v4 = try directory.write("v4.yaml", try String(contentsOfFile: v3, encoding: .utf8).replacingOccurrences(of: "[[impact_kt]]", with: "[[impact_kt], [altitude]]"))
        let run = try importer(["run", "--store", store, "--model", v4, sample("fireball-2026.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.indexes(store, backend: backend) == ["altitude", "impact_kt"])
        let bad = try directory.write("bad.yaml", try String(contentsOfFile: v4, encoding: .utf8).replacingOccurrences(of: "[altitude]]", with: "[height]]"))
        let checked = try importer(["model", "check", bad])
        #expect(checked.status == 78 && checked.stderr.contains("index (height): 'height' is not a stored attribute"), "\(checked.stderr)")
    }
}
