import ArgumentParser
import Foundation
import ImporterKit

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The store at a glance: file, schema, records, history, consumers, views, purged range.",
        discussion: """
            Examples:
              importer status
              importer status --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let status = try StoreStatus(store: try storeOptions.openForReading())
            let output = OutputSink()
            StatusReport(status).render(as: format, to: output)
            try output.flush()
            return .success
        }
    }
}
