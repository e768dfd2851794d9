import ArgumentParser
import Foundation
import ImporterKit

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring a store to a new version of its model, in one transaction recorded in history.",
        discussion: """
            The steps are those between the entities the store registered and the model's \
            (`importer model diff`): a new entity; a new attribute, optional or with a default: \
            (`default: 0` on the attribute) that every stored record takes; an attribute renamed \
            (`renamed-from: old` on the new attribute: its column, past changes, views and \
            consumer filters take the new name); an attribute the model no longer declares (its \
            column goes, history keeps its past values); an attribute whose type changed (stored \
            and past values converted; a value that does not convert exits 65 naming its record, \
            unless `retype-invalid: null|default` says what it becomes). They are applied in one \
            store transaction, recorded as a history transaction (context `migration`, the model \
            its source) and as the store's new model version. A step importer cannot do yet (a \
            key attribute's retype, a new key or table) refuses the whole migration (78) naming \
            it, and nothing changes.

            Examples:
              importer migrate --model fireball-v2.yaml --plan
              importer migrate --model fireball-v2.yaml --dry-run
              importer migrate --model fireball-v2.yaml --author ops
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The new model file (YAML or JSON).", valueName: "file"), completion: .file(extensions: ["yaml", "yml", "json"]))
    var model: String

    @Flag(name: .long, help: "Print the steps, what each does and the records it touches; change nothing.")
    var plan = false

    @Flag(name: .customLong("dry-run"), help: "Apply the migration, print it, then roll back: the store is unchanged.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("The migration transaction's author (default: $IMPORTER_AUTHOR, else importer-migrate).", valueName: "name"))
    var author: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.open(create: false), logger = storeOptions.logging.makeLogger()
            let migration = ModelMigration(model: try ModelOptions.loadModel(path: model), source: model)
            let environmentAuthor = ProcessInfo.processInfo.environment["IMPORTER_AUTHOR"].flatMap { $0.isEmpty ? nil : $0 }
            let output = OutputSink()
            var refused: MigrationStep?
            try store.inTransaction { (tx: StoreWriteTransaction) throws -> TransactionCompletion<Void> in
                let steps = migration.steps(from: store.entities, views: try tx.snapshot.allViews())
                for note in migration.unmatchedNames(from: store.entities, removed: try tx.snapshot.records.removedEntityNames()) { logger.warning("\(note)") }
                var plan = try MigrationPlan(steps: steps, in: tx.snapshot, entities: store.entities)
                refused = self.plan ? nil : steps.first { $0.refusal != nil }
                guard !self.plan, !steps.isEmpty, refused == nil else {
                    plan.write(as: format, to: output)
                    return .rollback(())
                }
                let number = try migration.apply(steps, author: author ?? environmentAuthor ?? "importer-migrate", in: tx, store: store)
                plan.transaction = (number, store.token(number).description)
                plan.dryRun = dryRun
                plan.write(as: format, to: output)
                return .commit((), unless: dryRun)
            }
            try output.flush()
            if let refused { throw StoreError.incompatibleModel(entity: refused.entity, reason: "\(refused.description): \(refused.refusal ?? "")") }
            return .success
        }
    }
}
