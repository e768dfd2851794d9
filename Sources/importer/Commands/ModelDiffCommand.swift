import ArgumentParser
import Foundation
import ImporterKit

struct ModelDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print the steps between the model a store holds and a model file.",
        discussion: """
            The same steps `importer migrate --plan` prints, from a store opened for reading: \
            each with the records it would rewrite and what it does to history, or why importer \
            cannot do it yet. Changes nothing.

            Examples:
              importer model diff --store fireballs.sqlite --model fireball-v2.yaml
              importer model diff --model fireball-v2.yaml --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The model file to compare the store with.", valueName: "file"), completion: .file(extensions: ["yaml", "yml", "json"]))
    var model: String

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading(), logger = storeOptions.logging.makeLogger()
            let migration = ModelMigration(model: try ModelOptions.loadModel(path: model), source: model)
            let output = OutputSink()
            try store.read { (snapshot: StoreSnapshot) throws in
                try store.reloadEntities()
                for note in migration.unmatchedNames(from: store.entities, removed: try snapshot.records.removedEntityNames()) { logger.warning("\(note)") }
                try MigrationPlan(steps: migration.steps(from: store.entities, views: try snapshot.allViews()), in: snapshot, entities: store.entities).write(as: format, to: output)
            }
            try output.flush()
            return .success
        }
    }
}
