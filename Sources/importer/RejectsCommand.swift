import ArgumentParser
import Foundation
import ImporterKit

struct RejectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rejects",
        abstract: "The rejected records that runs kept in the store (run --max-rejects N).",
        subcommands: [List.self, Show.self, Clear.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the runs with rejects.", discussion: """
            Examples:
              importer rejects list
              importer rejects list --format json
            """)
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try storeOptions.read { store, output in
                let runs = try RejectStore(store: store).runs()
                switch format {
                case .text:
                    if runs.isEmpty { output.write("No rejects.\n") }
                    for run in runs {
                        output.write("run \(run.run) at \(run.createdAt): \(run.count) reject(s) in \(run.sources.joined(separator: ", "))\(run.transactionNumber.map { ", transaction \($0)" } ?? "")\n")
                    }
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginArray()
                        for run in runs {
                            json.beginObject()
                            json.field("run", run.run)
                            json.field("transaction", run.transactionNumber.map(Value.integer) ?? .null)
                            json.field("created_at", run.createdAt)
                            json.field("rejects", run.count)
                            json.field("sources", strings: run.sources)
                            json.endObject()
                        }
                        json.endArray()
                    }
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a run's rejects (the latest run by default): location, attribute, reason, raw value.",
            discussion: """
                A run number with no rejects kept is exit 66.

                Examples:
                  importer rejects show
                  importer rejects show 3 --format ndjson
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The run number.", valueName: "run")) var runNumber: Int64?
        @Option(name: .long, help: "Output format: text, json or ndjson.") var format: Format = .text

        /// For people, one JSON object, or one JSON object per reject.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, ndjson
        }

        func run() throws {
            try storeOptions.read { store, output in
                let (number, rejects) = try RejectStore(store: store).rejects(run: runNumber)
                switch format {
                case .text:
                    if number == nil { output.write("No rejects.\n") }
                    for reject in rejects { output.write("\(reject)\n") }
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginObject()
                        json.field("run", number.map(Value.integer) ?? .null)
                        json.key("rejects")
                        json.beginArray()
                        for reject in rejects { json.writeReject(reject) }
                        json.endArray()
                        json.endObject()
                    }
                case .ndjson:
                    for reject in rejects { JSONWriter.document(to: output) { $0.writeReject(reject) } }
                }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete stored rejects (one run, or all).", discussion: """
            Examples:
              importer rejects clear --run 3
              importer rejects clear
            """)
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Option(name: .customLong("run"), help: ArgumentHelp("Only this run's rejects.", valueName: "number")) var runNumber: Int64?
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.open(create: false)
                let count = try store.write { try RejectStore(store: store).clear(run: runNumber) }
                try confirmation("Cleared \(count) reject(s).", format: format) { json in
                    json.field("cleared", count)
                    json.field("run", runNumber.map(Value.integer) ?? .null)
                }
                return .success
            }
        }
    }
}
