import ArgumentParser
import ImporterKit

@main
struct Importer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "importer",
        abstract: "Import feeds into an SQLite store with batch upserts and persistent history.",
        discussion: """
            Feeds (the NASA/JPL fireball API JSON built in; JSON, NDJSON, XML and CSV through a \
            model file) are upserted through unique keys in one store transaction per run; every \
            change is recorded in history (author, context, time, token, per-record changes with \
            old and new values), replayed into derived views and reported to named consumers.

            Exit codes: 0 success, 1 no changes (run --exit-code) or differences (views verify), \
            3 expired token, 64 usage, 65 bad input (nothing written), 66 missing input, \
            70 internal failure, 74 I/O error, 75 store busy, 77 permission denied, \
            78 model or schema unusable, 130/143 interrupted by SIGINT/SIGTERM (rolled back).
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, UndoCommand.self, ExportCommand.self, HistoryCommand.self, ConsumersCommand.self, ReplayCommand.self, ViewsCommand.self, WatchCommand.self, CheckCommand.self, RejectsCommand.self, ModelCommand.self, ReportCommand.self, QueryCommand.self, StatusCommand.self]
    )
}
