import Foundation
import ImporterKit
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// Models that evolve without losing history (issue 45): a store written by the built-in fireball
/// model migrated by a version that renames `energy` to `energy_kt`, adds a required `source` that
/// stored records fill with its default, and an optional `note`.
@Suite struct MigrationTests {
    /// The built-in model as `model show` writes it, and the same model with `edit` applied.
    static func models(in directory: TemporaryDirectory, _ edit: (String) -> String) throws -> (v1: String, v2: String) {
        let text = try importer(["model", "show"]).stdout
        return (try directory.write("v1.yaml", text), try directory.write("v2.yaml", edit(text)))
    }

    /// v2: energy renamed, a required attribute with a default (the feed gives it as a constant),
    /// an optional one the feed does not map, velocity removed.
    static func renamedAndFilled(_ text: String) -> String {
        text.replacingOccurrences(of: "  - name: velocity\n    type: real\n    doc: velocity at peak brightness, km/s\n", with: "")
            .replacingOccurrences(of: "  - attribute: velocity\n    field: vel\n", with: "")
            .replacingOccurrences(of: "  - name: energy\n", with: "  - name: energy_kt\n    renamed-from: energy\n")
            .replacingOccurrences(of: "tombstone: [date, energy,", with: "tombstone: [date, energy_kt,")
            .replacingOccurrences(of: "attribute: energy\n", with: "attribute: energy_kt\n")
            .replacingOccurrences(of: "  - name: impact_energy\n", with: "  - name: source\n    type: text\n    required: true\n    default: cneos\n  - name: note\n    type: text\n  - name: impact_energy\n")
            .replacingOccurrences(of: "  fields:\n", with: "  fields:\n  - attribute: source\n    constant: cneos\n")
    }

    @Test func aRenameAndAFilledAttributeKeepTheHistory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.migrate(directory: directory, store: directory.path("f.sqlite"))
    }

    @Test func aRenameAndAFilledAttributeKeepTheHistoryOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.migrate(directory: directory, store: try PostgresTestCluster.start().newStoreURL())
    }

    static func migrate(directory: TemporaryDirectory, store: String) throws {
        let (v1, v2) = try models(in: directory, renamedAndFilled)
        #expect(try importer(["model", "check", v2]).status == 0)
        for feed in ["fireball-2024.json", "fireball-2026.json"] {
            #expect(try importer(["run", "--store", store, "--model", v1, sample(feed)]).status == 0)
        }
        #expect(try importer(["consumers", "add", "watcher", "--attribute", "energy", "--from", "beginning", "--store", store]).status == 0)
        func transactions() throws -> [[String: Any]] {
            ((try importer(["history", "--store", store, "--format", "json"]).json as? [String: Any])?["transactions"] as? [[String: Any]]) ?? []
        }
        let before = try transactions()
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        // The plan names the steps and their cost, and changes nothing.
        let plan = try importer(["migrate", "--store", store, "--model", v2, "--plan", "--format", "json"])
        let steps = ((plan.json as? [String: Any])?["steps"] as? [[String: Any]]) ?? []
        #expect(plan.status == 0 && steps.map { $0["step"] as? String ?? "" } == [
            "rename Fireball.energy → energy_kt", "remove attribute Fireball.velocity",
            "add required attribute Fireball.source (text), stored records take cneos", "add optional attribute Fireball.note (text)",
        ], "\(plan.stdout)\(plan.stderr)")
        #expect(steps.map { $0["records"] as? Int ?? -1 } == [0, 0, 14, 0])
        #expect(try transactions().count == before.count && (try importer(["export", "--store", store, "--format", "csv"])).stdout == export)
        #expect(try importer(["model", "diff", "--store", store, "--model", v2]).stdout.contains("rename Fireball.energy → energy_kt"))
        // A run with the new model is refused, naming the steps and the command.
        let refused = try importer(["run", "--store", store, "--model", v2, sample("fireball-2026.json")])
        #expect(refused.status == 78 && refused.stderr.contains("rename Fireball.energy → energy_kt") && refused.stderr.contains("importer migrate --plan"),
                "\(refused.stderr)")
        let migrated = try importer(["migrate", "--store", store, "--model", v2, "--author", "ops"])
        #expect(migrated.status == 0 && migrated.stdout.contains("Migrated: transaction \(before.count + 1)"), "\(migrated.stdout)\(migrated.stderr)")
        let after = try transactions()
        #expect(after.count == before.count + 1 && after.last?["context"] as? String == "migration" && after.last?["author"] as? String == "ops", "\(after.last ?? [:])")
        // The past reads under the new name; the stored records hold the default.
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        #expect(history.contains(#""energy_kt":{"old":2.1,"new":2.4}"#) && !history.contains(#""energy":"#), "\(history)")
        let filled = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM fireball WHERE source = 'cneos' AND note IS NULL"]).stdout
        #expect(filled.trimmingCharacters(in: .whitespacesAndNewlines) == "14")
        // The added required attribute's column is NOT NULL, as a store created with the new model has it.
        let notNull = store.hasPrefix("postgres")
            ? "SELECT CASE is_nullable WHEN 'NO' THEN 1 ELSE 0 END FROM information_schema.columns WHERE table_name = 'fireball' AND column_name = 'source'"
            : #"SELECT "notnull" FROM pragma_table_info('fireball') WHERE name = 'source'"#
        #expect(try importer(["query", "--store", store, "--raw", notNull]).stdout == "1\n")
        // The removed attribute's column is gone; its past values stay in history.
        #expect(!(try importer(["export", "--store", store, "--format", "csv"])).stdout.contains("velocity"))
        #expect(history.contains(#""velocity":16"#), "the first import's values of velocity: \(history)")
        let first = try importer(["query", "--store", store, "--raw", "SELECT token FROM importer_transaction WHERE number = 1"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let asOf = try importer(["export", "--store", store, "--as-of", first, "--format", "csv"])
        #expect(asOf.stderr.contains("the records as of transaction 1 are shown in today's model: migration \(before.count + 1) (rename Fireball.energy → energy_kt;"),
                "the shape is said: \(asOf.stderr)")
        let past = asOf.stdout.split(separator: "\r\n")
        #expect(past.count == 11 && past.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 11 }, "the past in today's shape: \(past)")
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        let consumers = try importer(["consumers", "list", "--store", store, "--format", "json"]).stdout
        #expect(consumers.contains(#""energy_kt""#) && !consumers.contains(#""energy""#), "\(consumers)")
        // The next import with the new model reports only real changes.
        let again = try importer(["run", "--store", store, "--model", v2, sample("fireball-2026.json")])
        #expect(again.status == 0 && again.stdout.hasPrefix("No changes."), "\(again.stdout)\(again.stderr)")
        let versions = try importer(["model", "versions", "--store", store, "--format", "json"]).json as? [[String: Any]] ?? []
        #expect(versions.count == 2 && versions.last?["transaction"] as? Int == before.count + 1, "\(versions)")
        let shown = try importer(["model", "versions", "--store", store, "--show", "1"]).stdout
        #expect(shown == (try String(contentsOfFile: v1, encoding: .utf8)), "version 1 is the model the store was first written with")
    }

    /// A name the model gives that matches nothing in the store (a misspelt `renamed-from:` or
    /// `removed-entities:`) is warned of by `model diff` and `migrate`, naming what then happens.
    @Test func namesTheStoreDoesNotHoldAreWarnedOf() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("f.sqlite")
        let (v1, v2) = try Self.models(in: directory) { text in
            Self.renamedAndFilled(text).replacingOccurrences(of: "renamed-from: energy\n", with: "renamed-from: enrgy\n") + "removed-entities: [Fireballs]\n"
        }
        #expect(try importer(["run", "--store", store, "--model", v1, sample("fireball-2024.json")]).status == 0)
        let warnings = [
            "importer: warning: removed-entities: the store never held an entity Fireballs (misspelt?): nothing to remove",
            "importer: warning: Fireball.energy_kt: renamed-from: Fireball holds no attribute enrgy: energy_kt is added as a new attribute",
        ]
        for command in [["model", "diff"], ["migrate", "--plan"]] {
            let result = try importer(command + ["--store", store, "--model", v2])
            #expect(result.status == 0 && warnings.allSatisfy(result.stderr.contains), "\(command): \(result.stderr)")
            #expect(result.stdout.contains("remove attribute Fireball.energy") && result.stdout.contains("add optional attribute Fireball.energy_kt"), "\(result.stdout)")
        }
        let renamed = try directory.write("v3.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "- name: Fireball\n", with: "- name: Bolide\n  renamed-from: Fireballl\n")
            .replacingOccurrences(of: "entity: Fireball\n", with: "entity: Bolide\n"))
        let plan = try importer(["migrate", "--store", store, "--model", renamed, "--plan"])
        #expect(plan.stderr.contains("importer: warning: entity Bolide: renamed-from: the store holds no entity Fireballl: Bolide is added as a new entity"),
                "\(plan.stderr)")
        let clean = try importer(["migrate", "--store", store, "--model", try directory.write("v4.yaml", Self.renamedAndFilled(try String(contentsOfFile: v1, encoding: .utf8))), "--plan"])
        #expect(clean.status == 0 && !clean.stderr.contains("warning"), "a model whose names match warns of nothing: \(clean.stderr)")
    }

    /// Steps importer cannot do yet refuse the whole migration (78), naming them; the store is
    /// untouched. `run --migrate` applies a rename by itself, not a step that rewrites records.
    @Test func refusalsNameTheStepAndChangeNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("f.sqlite")
        let (v1, retyped) = try Self.models(in: directory) {
            $0.replacingOccurrences(of: "  - name: altitude\n    type: real\n", with: "  - name: altitude\n    type: date\n")
        }
        #expect(try importer(["run", "--store", store, "--model", v1, sample("fireball-2024.json")]).status == 0)
        let export = try importer(["export", "--store", store, "--format", "csv"]).stdout
        let retype = try importer(["migrate", "--store", store, "--model", retyped])
        #expect(retype.status == 78 && retype.stderr.contains("retype Fireball.altitude: real → date: real values do not become date values") && retype.stdout.contains("CANNOT"),
                "\(retype.stdout)\(retype.stderr)")
        let noDefault = try directory.write("no-default.yaml", Self.renamedAndFilled(try String(contentsOfFile: v1, encoding: .utf8))
            .replacingOccurrences(of: "    default: cneos\n", with: ""))
        let required = try importer(["migrate", "--store", store, "--model", noDefault])
        #expect(required.status == 78 && required.stderr.contains("a required attribute needs a default"), "\(required.stderr)")
        let filled = try directory.write("filled.yaml", Self.renamedAndFilled(try String(contentsOfFile: v1, encoding: .utf8)))
        let notAutomatic = try importer(["run", "--store", store, "--model", filled, "--migrate", sample("fireball-2026.json")])
        #expect(notAutomatic.status == 78 && !notAutomatic.stderr.contains("or run with --migrate"), "\(notAutomatic.stderr)")
        #expect(try importer(["export", "--store", store, "--format", "csv"]).stdout == export)
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout.split(separator: "\n").count == 10)
        // A rename alone: run --migrate migrates, then imports, two transactions.
        let renamed = try directory.write("renamed.yaml", try String(contentsOfFile: v1, encoding: .utf8)
            .replacingOccurrences(of: "  - name: energy\n", with: "  - name: energy_kt\n    renamed-from: energy\n")
            .replacingOccurrences(of: "tombstone: [date, energy,", with: "tombstone: [date, energy_kt,")
            .replacingOccurrences(of: "attribute: energy\n", with: "attribute: energy_kt\n"))
        let run = try importer(["run", "--store", store, "--model", renamed, "--migrate", "--format", "json", sample("fireball-2026.json")])
        #expect(run.status == 0 && ((run.json as? [String: Any])?["transaction"] as? [String: Any])?["number"] as? Int == 3, "\(run.stdout)\(run.stderr)")
        let contexts = try importer(["query", "--store", store, "--format", "csv", "SELECT context FROM importer_transaction ORDER BY number"]).stdout
        #expect(contexts.split(separator: "\r\n").dropFirst() == [#""run""#, #""migration""#, #""run""#], "\(contexts)")
    }
}

/// Consumers receive a migration (issue 45.3): a schema event with its steps, so a downstream
/// table can follow; history prints the steps.
@Suite struct MigrationEventTests {
    @Test func consumersAndHistorySeeTheMigration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("f.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["consumers", "add", "warehouse", "--from", "now", "--store", store]).status == 0)
        #expect(try importer(["migrate", "--store", store, "--model", sample("models/fireball-v2.yaml")]).status == 0)
        let received = directory.path("received.json")
        let delivered = try importer(["deliver", "--consumer", "warehouse", "--exec", "cat >> '\(received)'", "--store", store])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: received))) as? [String: Any])
        let migration = body["migration"] as? [String: Any]
        #expect(body["context"] as? String == "migration" && migration?["model_version"] as? Int == 2
                && (migration?["steps"] as? [String])?.first == "rename Fireball.energy → energy_kt", "\(body)")
        let history = try importer(["history", "--store", store])
        #expect(history.stdout.contains("  migration: rename Fireball.energy → energy_kt\n"), "\(history.stdout)")
    }
}

/// A store written before stores kept their model (no `importer_model`, as the previous release
/// left them) is diffed and migrated like any other; its first version is the migration's.
@Suite struct MigrationOfOlderStoresTests {
    @Test func aStoreWithoutModelVersionsMigrates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("old.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        try SQLiteConnection(path: store, create: false).execute("DROP TABLE importer_model")
        #expect(try importer(["model", "versions", "--store", store]).stdout.hasPrefix("No model version recorded yet"))
        #expect(try importer(["model", "diff", "--store", store, "--model", sample("models/fireball-v2.yaml")]).stdout.contains("rename Fireball.energy → energy_kt"))
        let migrated = try importer(["migrate", "--store", store, "--model", sample("models/fireball-v2.yaml")])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let versions = try importer(["model", "versions", "--store", store, "--format", "json"]).json as? [[String: Any]] ?? []
        #expect(versions.count == 1 && versions.first?["transaction"] as? Int == 2, "\(versions)")
        #expect(try importer(["run", "--store", store, "--model", sample("models/fireball-v2.yaml"), sample("fireball-2026.json")]).status == 0)
    }
}

/// The model keys of migrations and of the unmapped contract, given bad values: model check names
/// each (78); a version the store does not have is a usage error (64).
@Suite struct MigrationInputTests {
    @Test func badValuesAreNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let v2 = try String(contentsOfFile: sample("models/fireball-v2.yaml"), encoding: .utf8)
        let cases = [
            (v2.replacingOccurrences(of: "  - name: source\n    type: text", with: "  - name: source\n    type: integer")
                .replacingOccurrences(of: "  - attribute: source\n    constant: cneos\n", with: ""), "attribute source: default 'cneos' does not read as integer"),
            (v2.replacingOccurrences(of: "renamed-from: energy", with: "renamed-from: impact_energy"), "attribute energy_kt is renamed from 'impact_energy', which the entity still has"),
            (v2.replacingOccurrences(of: "  format: nasa-columnar\n", with: "  format: nasa-columnar\n  unmapped: sometimes\n"), "unmapped: 'sometimes' is not one of: ignore, warn, fail"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let check = try importer(["model", "check", try directory.write("bad-\(index).yaml", text)])
            #expect(check.status == 78 && check.stderr.contains(message), "\(check.stderr)")
        }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let missing = try importer(["model", "versions", "--store", store, "--show", "9"])
        #expect(missing.status == 64 && missing.stderr.contains("the store has no model version 9 (it has 1)"), "\(missing.stderr)")
    }
}
