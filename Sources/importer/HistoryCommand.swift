import ArgumentParser
import ImporterKit

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List history transactions and their changes.",
        discussion: """
            Prints the transactions after --after TOKEN (all when omitted), oldest first, each with \
            its changes: inserts with their values, updates with old and new values of the changed \
            attributes, deletes with their tombstones.

            Example: importer history --after AQ3k...AAAAAAAAAAI --format json
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Only transactions after this token.", valueName: "token"))
    var after: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    func run() throws {
        try runReportingErrors {
            let store = try storeOptions.open(create: false)
            let afterNumber = try after.map { try store.parseToken($0).transactionNumber } ?? 0
            let output = OutputSink()
            try store.connection.transaction(immediate: false) {
                try HistoryRenderer(store: store).render(after: afterNumber, as: format, to: output)
            }
            try output.flush()
            return .success
        }
    }
}
