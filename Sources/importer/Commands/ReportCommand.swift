import ArgumentParser
import Foundation
import ImporterKit

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a change report for a token range or a consumer's pending changes.",
        discussion: """
            Reads the history tables, so a report of an old range is the same as the one printed \
            at the time. Several --report/--output pairs write several reports of the same range: \
            each reads the history again, all in one read transaction, so they agree. Unlike \
            `history --consumer --ack`, it never moves a consumer's token.

            Examples:
              importer report --since 7d --output week.html --output week.json
              importer report --consumer mailer --format markdown
              importer report --after "$token" --through "$later" --format csv
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @OptionGroup var range: HistoryRangeOptions

    @Option(name: .long, help: ArgumentHelp("Up to and including this token (default: the newest).", valueName: "token"))
    var through: String?

    @OptionGroup(title: "Report options") var reports: ReportOutputOptions

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let targets = try reports.targets()
            try store.read { (snapshot: StoreSnapshot) throws in
                let shown = try range.resolve(of: store, in: snapshot, through: through)
                let title = range.consumer.map { "importer report: pending changes of \($0)" }
                let content = try ReportContent(storePath: store.path, after: shown.after, through: shown.through, filter: shown.filter, title: title,
                                                in: snapshot)
                try targets.write(content, store: store, in: snapshot)
            }
            return .success
        }
    }
}
