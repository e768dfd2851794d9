import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Undo across a migration (issue 45.3): a transaction from before a rename is undone under the
/// new names; one that changed an attribute a migration removed, and the migration itself, are
/// refused (65) with the reason, nothing written.
@Suite struct MigrationUndoTests {
    @Test(arguments: ["sqlite", "postgres"]) func undoAcrossAMigration(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let renamed = { (text: String) in
            text.replacingOccurrences(of: "  - name: energy\n", with: "  - name: energy_kt\n    renamed-from: energy\n")
                .replacingOccurrences(of: "tombstone: [date, energy,", with: "tombstone: [date, energy_kt,")
                .replacingOccurrences(of: "attribute: energy\n", with: "attribute: energy_kt\n")
        }
        let (v1, v2) = try MigrationTests.models(in: directory, renamed)
        let v3 = try directory.write("v3.yaml", try String(contentsOfFile: v2, encoding: .utf8)
            .replacingOccurrences(of: "  - name: vx\n    type: real\n    doc: pre-entry velocity, Earth-centred x, km/s\n", with: "")
            .replacingOccurrences(of: "  - attribute: vx\n    field: vx\n", with: ""))
        #expect(try importer(["run", "--store", store, "--model", v1, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["run", "--store", store, "--model", v1, "--max-updated", "100%", sample("fireball-vel-comp.json")]).status == 0)
        func token(_ number: Int) throws -> String {
            try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = \(number)"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try importer(["migrate", "--store", store, "--model", v2]).status == 0)
        // Transaction 2 from before the rename reads, and is undone, under the new name.
        let undone = try importer(["undo", "--store", store, try token(2), "--dry-run"])
        #expect(undone.status == 0 && undone.stdout.contains("energy_kt: 2.4 → 2.1"), "\(undone.stdout)\(undone.stderr)")
        let migration = try importer(["undo", "--store", store, "--last"])
        #expect(migration.status == 65 && migration.stderr.contains("transaction 3 is a migration: it is undone by migrating back"), "\(migration.stderr)")
        #expect(try importer(["migrate", "--store", store, "--model", v3]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let removed = try importer(["undo", "--store", store, try token(2)])
        #expect(removed.status == 65 && removed.stderr.contains("transaction 2 cannot be undone: it changed Fireball.vx, which a later migration removed"),
                "\(removed.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export, "nothing written")
        let transactions = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_transaction"]).stdout
        #expect(transactions == "4\n", "two runs, two migrations, no undo: \(transactions)")
    }
}

/// A record deleted before a migration gave its entity a required attribute comes back by `undo`
/// as the migration left the others (the fill is in the delete's image too); a delete whose image
/// lacks the value (a store migrated by the release before) is refused (65) naming the record and
/// the attribute, nothing written. Never a null in a required attribute.
@Suite struct MigrationUndoFillTests {
    static let v1 = """
        entities:
        - name: Station
          table: station
          key: [code]
          attributes:
          - {name: code, type: text, required: true}
          - {name: name, type: text}
        feeds:
        - name: stations
          entity: Station
          format: ndjson
          fields:
          - {attribute: code, field: code}
          - {attribute: name, field: name}

        """

    @Test(arguments: ["sqlite", "postgres"]) func aDeleteUndoneAfterAFillTakesIt(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", Self.v1)
        let v2 = try directory.write("v2.yaml", Self.v1.replacingOccurrences(of: "  - {name: name, type: text}\n",
                                                                             with: "  - {name: name, type: text}\n  - {name: region, type: text, required: true, default: north}\n"))
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("d1.ndjson", #"{"code":"A","name":"a"}"# + "\n" + #"{"code":"B","name":"b"}"# + "\n")]).status == 0)
        #expect(try importer(["run", "--store", store, "--model", v1, "--sync", try directory.write("d2.ndjson", #"{"code":"A","name":"a"}"# + "\n")]).status == 0)
        #expect(try importer(["migrate", "--store", store, "--model", v2]).status == 0)
        let token = try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = 2"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let dry = try importer(["undo", "--store", store, token, "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("+ Station B  name=b region=north"), "\(dry.stdout)\(dry.stderr)")
        if backend == "postgres" {
            // The delete's image as the release before left it: without the value.
            let cluster = try PostgresTestCluster.start()
            try cluster.psql(#"UPDATE importer_change_station SET region = NULL WHERE importer_type = 'delete'"#, database: PostgresTestCluster.database(of: store))
            let before = try importer(["export", "--store", store, "--format", "csv"]).stdout
            let refused = try importer(["undo", "--store", store, token])
            #expect(refused.status == 65 && refused.stderr.contains("transaction 2 cannot be undone: it deleted Station B, whose region (required since a later migration) it did not record"),
                    "\(refused.stdout)\(refused.stderr)")
            #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == before, "nothing written")
            return
        }
        #expect(try importer(["undo", "--store", store, token]).status == 0)
        #expect(try importer(["query", "--store", store, "--raw", "SELECT group_concat(code || '=' || region, ' ') FROM (SELECT code, region FROM station ORDER BY code) AS s"]).stdout == "A=north B=north\n")
    }
}

/// `default: {expression: …}` (issue 45.2): a required attribute each stored record takes from its
/// other attributes, deleted ones' images in history too; an expression that gives null for a
/// record refuses the migration (65) naming it, store untouched; one that reads what the entity
/// lacks, or gives another type, is refused by `model check` (78).
@Suite struct MigrationExpressionDefaultTests {
    static func model(_ expression: String) -> String {
        MigrationUndoFillTests.v1.replacingOccurrences(of: "  - {name: name, type: text}\n",
                                                       with: "  - {name: name, type: text}\n  - {name: label, type: text, required: true, default: {expression: \"\(expression)\"}}\n")
    }

    @Test(arguments: ["sqlite", "postgres"]) func storedRecordsTakeTheExpression(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let v1 = try directory.write("v1.yaml", MigrationUndoFillTests.v1)
        let rows = [#"{"code":"A","name":"a"}"#, #"{"code":"B","name":null}"#, #"{"code":"C","name":"c"}"#]
        #expect(try importer(["run", "--store", store, "--model", v1, try directory.write("1.ndjson", rows.joined(separator: "\n") + "\n")]).status == 0)
        #expect(try importer(["run", "--store", store, "--model", v1, "--sync", try directory.write("2.ndjson", rows.prefix(2).joined(separator: "\n") + "\n")]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let nulls = try importer(["migrate", "--store", store, "--model", try directory.write("v2.yaml", Self.model("upper(code) || '-' || name"))])
        #expect(nulls.status == 65 && nulls.stderr.contains("1 stored record(s) hold null: (B). Its default upper(code) || '-' || name gives null for them"), "\(nulls.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export, "store untouched")
        let migrated = try importer(["migrate", "--store", store, "--model", try directory.write("v3.yaml", Self.model("coalesce(upper(code) || '-' || name, code)"))])
        #expect(migrated.status == 0 && migrated.stdout.contains("stored records take the value of coalesce(upper(code) || '-' || name, code)"), "\(migrated.stdout)\(migrated.stderr)")
        let labels = { try importer(["query", "--store", store, "--format", "csv", "SELECT code, label FROM station ORDER BY code"]).stdout.split(separator: "\r\n").dropFirst() }
        #expect(try labels() == [#""A","A-a""#, #""B","B""#])
        let token = try MigrationRelationshipKeyTests.token(2, store)
        #expect(try importer(["undo", "--store", store, token]).status == 0)
        #expect(try labels() == [#""A","A-a""#, #""B","B""#, #""C","C-c""#], "the deleted record's image took it too")
    }

    @Test func modelCheckRefusesAnExpressionThatCannotFill() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for (expression, problem) in [
            ("upper(place)", "default expression 'upper(place)': "),
            ("label || code", "default expression 'label || code' reads the attribute it fills"),
            ("length(name)", "default expression 'length(name)' gives integer values, not text"),
        ] {
            let check = try importer(["model", "check", try directory.write("m.yaml", Self.model(expression))])
            #expect(check.status == 78 && check.stderr.contains("entity Station: attribute label: " + problem), "\(expression): \(check.stderr)")
        }
    }
}

/// A view whose definition the new model changes is rebuilt by the migration (issue 45.2); a view
/// that a rename alone brings along is not.
@Suite struct MigrationViewTests {
    @Test func aChangedViewIsRebuiltByTheMigration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("f.sqlite")
        let (v1, v2) = try MigrationTests.models(in: directory) { text in
            MigrationTests.renamedAndFilled(text).replacingOccurrences(of: "  - name: impact_energy_sum\n    function: sum\n", with: "  - name: impact_energy_total\n    function: sum\n")
        }
        for feed in ["fireball-2024.json", "fireball-2026.json"] {
            #expect(try importer(["run", "--store", store, "--model", v1, sample(feed)]).status == 0)
        }
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan", "--format", "json"])
        let steps = ((plan.json as? [String: Any])?["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
        #expect(steps.last == "rebuild view fireball_by_region" && !steps.contains { $0.contains("fireball_by_year") }, "\(steps)")
        let migrated = try importer(["migrate", "--store", store, "--model", v2])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let rows = try importer(["query", "--store", store, "--format", "csv", "SELECT sum(count), round(sum(impact_energy_total), 3) FROM fireball_by_region"]).stdout
        let expected = try importer(["query", "--store", store, "--format", "csv", "SELECT count(*), round(sum(impact_energy), 3) FROM fireball"]).stdout
        #expect(rows.split(separator: "\r\n").last == expected.split(separator: "\r\n").last, "\(rows) against \(expected)")
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let again = try importer(["run", "--store", store, "--model", v2, sample("fireball-2026.json")])
        #expect(again.status == 0 && again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
    }
}
