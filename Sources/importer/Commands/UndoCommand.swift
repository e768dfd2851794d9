import ArgumentParser
import Foundation
import ImporterKit

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Write the exact inverse of a history transaction as a new transaction.",
        discussion: """
            Inserted records are deleted, updated attributes get their old values back (a re-keyed \
            record moves back to its old key), deleted records come back with their id and every \
            value. The new transaction's author is `undo` and its context names the undone token; \
            views are replayed in the same store transaction. If later transactions changed the same \
            records, undo refuses and names them (exit 65), unless --cascade undoes them too, newest \
            first. A transaction whose history was purged cannot be undone (exit 3).

            Examples:
              importer undo --last --dry-run
              importer undo --last
              importer undo "$token" --cascade     # a token from importer history
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The token of the transaction to undo.", valueName: "token"))
    var token: String?

    @Flag(name: .long, help: "Undo the last transaction.")
    var last = false

    @Flag(name: .long, help: "Also undo the later transactions that changed the same records (newest first).")
    var cascade = false

    @Flag(name: .customLong("dry-run"), help: "Print what undo would write, then roll back: the store is unchanged.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("The report printed on standard output: text (default), json, ndjson, markdown, csv or html.", valueName: "format"))
    var format: ReportFormat = .text

    func validate() throws {
        guard (token != nil) != last else { throw ValidationError("give a TOKEN or --last (one of them)") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.open(create: false)
            var undo = HistoryUndo(storeID: store.storeID, entities: store.entities)
            undo.cascade = cascade
            let output = OutputSink()
            try store.inTransaction { (tx: StoreWriteTransaction) throws -> TransactionCompletion<Void> in
                let number = try last ? tx.history.lastTransactionNumber() : store.parseToken(token ?? "").transactionNumber
                guard number > 0 else { throw UndoError.noTransaction("the store has no history") }
                let outcome = try undo.run(number, in: tx)
                let written = outcome.written
                var content = try ReportContent(storePath: store.path, after: (written.min() ?? 1) - 1, through: written.max() ?? 0,
                                                title: "importer undo", in: tx.snapshot)
                if dryRun { content.markDryRun(title: "importer undo: dry run — nothing was written (\(URL(fileURLWithPath: store.path).lastPathComponent))") }
                content.warnings = outcome.warnings
                try ReportWriter(store: store, snapshot: tx.snapshot).write(content, as: format, to: output)
                return .commit((), unless: dryRun)
            }
            try output.flush()
            return .success
        }
    }
}
