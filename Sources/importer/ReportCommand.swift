import ArgumentParser
import Foundation
import ImporterKit

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a change report for a token range or a consumer's pending changes.",
        discussion: """
            Reads the history tables, so a report of an old range is the same as the one printed \\
            at the time. Several --report/--output pairs write several reports from one read. \\
            Unlike `history --consumer --ack`, it never moves a consumer's token.

            Examples:
              importer report --after AQ3k...AAAAAAAAAAI --report html --output changes.html --report json --output changes.json
              importer report --consumer mailer --report markdown
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Transactions after this token.", valueName: "token"))
    var after: String?

    @Option(name: .long, help: ArgumentHelp("Up to and including this token (default: the newest).", valueName: "token"))
    var through: String?

    @Option(name: .long, help: ArgumentHelp("Transactions at or after this UTC date or datetime.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("The pending changes of this consumer (after its token, filtered).", valueName: "name"))
    var consumer: String?

    @Option(name: .long, help: ArgumentHelp("A report format: text, json, ndjson, markdown, csv or html (repeatable).", valueName: "format"))
    var report: [ReportFormat] = []

    @Option(name: .long, help: ArgumentHelp("Write the matching --report to this file, atomically (repeatable).", valueName: "file"))
    var output: [String] = []

    func validate() throws {
        if [after, since, consumer].compactMap({ $0 }).count > 1 { throw ValidationError("give at most one of --after, --since and --consumer") }
        do { _ = try ReportTargets(formats: report, outputs: output) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.open(create: false)
            let targets = try ReportTargets(formats: report, outputs: output)
            try store.connection.transaction(immediate: false) {
                let range = try HistoryRange.resolve(store: store, after: after, since: since, consumer: consumer, through: through, limit: nil)
                let title = consumer.map { "importer report: pending changes of \($0)" }
                try targets.write(try ReportContent(store: store, after: range.after, through: range.through, filter: range.filter, title: title), store: store)
            }
            return .success
        }
    }
}
