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
            try storeOptions.read { _, snapshot, output in
                RejectRunsReport(try snapshot.rejectRuns()).render(as: format, to: output)
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
        @Option(name: .long, help: "Output format: text, json or ndjson.") var format: RejectsReport.Format = .text

        func run() throws {
            try storeOptions.read { _, snapshot, output in
                let (number, rejects) = try snapshot.rejects(ofRun: runNumber)
                RejectsReport(run: number, rejects: rejects).render(as: format, to: output)
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
                let count = try store.write { (tx: StoreWriteTransaction) throws -> Int in try tx.clearRejects(run: runNumber) }
                try confirmation("Cleared \(count) reject(s).", format: format) { json in
                    json.field("cleared", count)
                    json.field("run", runNumber.map(Value.integer) ?? .null)
                }
                return .success
            }
        }
    }
}

extension RejectsReport.Format: ExpressibleByArgument {}
