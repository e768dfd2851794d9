import ArgumentParser
import ImporterKit

@main
struct Importer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "importer",
        abstract: "Import feeds into a store (SQLite or PostgreSQL) with batch upserts and persistent history.",
        discussion: """
            Feeds (the NASA/JPL fireball API JSON built in; JSON, NDJSON, XML and CSV through a \
            model file) are upserted through unique keys in one store transaction per run; every \
            change is recorded in history (author, context, time, token, per-record changes with \
            old and new values), replayed into derived views and reported to named consumers.

            Getting started:
              export IMPORTER_STORE=fireballs.sqlite
              importer run SampleData/fireball-2024.json
              importer run --sync SampleData/fireball-2026.json
              importer history --since 7d
              importer views show fireball_by_year
              importer query "SELECT count(*) FROM fireball"

            Options mean the same in every command: --store is the store, an SQLite file or a \
            postgres://user@host:port/database URL (default $IMPORTER_STORE, else \
            importer.sqlite); --format is what goes to standard output; \
            --report FORMAT --output FILE pairs write report files; --feed-format is how a feed \
            is read and --mapping which of the model's feed mappings reads it; --view names a \
            view, --consumer a consumer; dates (--since, --before, --as-of) are 2026-01-01, \
            2026-01-01T08:30:00+02:00 or a time ago (30m, 12h, 7d). Scripts get --format json \
            from every command that prints something. Results go to standard output, logs and \
            progress to standard error.

            Exit codes: 0 success, 1 no changes (run --exit-code) or differences (views \
            verify), 3 expired token, 64 usage, 65 bad input (nothing written), 66 missing \
            input, 69 PostgreSQL server unavailable, 70 internal failure, 74 I/O error, 75 store \
            busy, 77 permission denied, \
            78 model or schema unusable, 130/143 interrupted by SIGINT/SIGTERM (rolled back).
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, CheckCommand.self, StatusCommand.self, HistoryCommand.self, ReportCommand.self,
                      ExportCommand.self, QueryCommand.self, UndoCommand.self, ConsumersCommand.self, ReplayCommand.self,
                      ViewsCommand.self, WatchCommand.self, DeliverCommand.self, RejectsCommand.self, ModelCommand.self, MigrateCommand.self]
    )

    static func main() {
        AllocatorSettings.apply()
        main(nil)
    }
}
