import ArgumentParser
import Foundation
import ImporterKit

struct ModelVersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the versions of the model a store was written with, or print one.",
        discussion: """
            A run records the model it imported with when it differs from the store's newest \
            version; a migration records the new model with its transaction and steps. Each \
            version: its number, SHA-256 digest, when it was recorded, and the migration that \
            brought it. --show N prints version N's model file.

            Examples:
              importer model versions --store fireballs.sqlite
              importer model versions --store fireballs.sqlite --show 1 > fireball-v1.yaml
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Print this version's model file.", valueName: "version"))
    var show: Int64?

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let versions = try store.read { (snapshot: StoreSnapshot) throws -> [StoredModel] in try snapshot.records.registeredModels() }
            let output = OutputSink()
            if let show {
                guard let version = versions.first(where: { $0.version == show }) else {
                    throw ValidationError("the store has no model version \(show) (it has \(versions.count))")
                }
                output.write(version.text)
            } else if format == .json {
                JSONWriter.document(to: output) { json in
                    json.beginArray()
                    for version in versions {
                        json.beginObject()
                        json.field("version", version.version)
                        json.field("digest", version.digest)
                        json.field("registered_at", version.registeredAt)
                        json.field("transaction", version.transaction.map(Value.integer) ?? .null)
                        json.field("steps", strings: version.steps)
                        json.endObject()
                    }
                    json.endArray()
                }
            } else {
                if versions.isEmpty { output.write("No model version recorded yet (stores record the model from their next run).\n") }
                for version in versions {
                    output.write("\(version.version)  \(version.digest.prefix(12))  \(version.registeredAt)"
                                 + (version.transaction.map { "  migration (transaction \($0)): " + version.steps.joined(separator: "; ") } ?? "") + "\n")
                }
            }
            try output.flush()
            return .success
        }
    }
}
