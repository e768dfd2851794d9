import ArgumentParser
import Foundation
import ImporterKit

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List history transactions and their changes, or purge consumed history.",
        discussion: "`importer history` is `importer history list`; see also `importer history purge --help`.",
        subcommands: [HistoryListCommand.self, HistoryPurgeCommand.self],
        defaultSubcommand: HistoryListCommand.self
    )
}

struct HistoryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List history transactions and their changes (the default of `importer history`).",
        discussion: """
            Prints the transactions after --after TOKEN, from --since DATE, or pending for \
            --consumer NAME (after its token, through its filters), oldest first, each with its \
            changes: inserts with their values, updates with old and new values of the changed \
            attributes, deletes with their tombstones. With --consumer and --ack, the consumer's \
            token advances past what was printed, once the output is written in full.

            Examples:
              importer history --since 7d
              importer history --after "$token" --format json
              importer history --consumer mailer --format ndjson --ack > queue.ndjson
              importer history --since 2026-11-01 --output changes.html
              importer history --key "2023-04-11 14:52:09" --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @OptionGroup var range: HistoryRangeOptions

    @Flag(name: .long, help: "With --consumer: advance its token past the printed transactions once the output is written.")
    var ack = false

    @Option(name: .long, help: ArgumentHelp("At most this many transactions.", valueName: "count"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("One record's timeline: every kept transaction that changed the record whose key was VALUE (re-keys followed; a composite key's values joined with \", \"), and its children (records of the entities keyed by its key and more).", valueName: "value"))
    var key: String?

    @Option(name: .long, help: ArgumentHelp("With --key: the record's entity (default: the store's only, or first, entity).", valueName: "name"))
    var entity: String?

    @OptionGroup(title: "Report options") var reports: ReportOutputOptions

    func validate() throws {
        if ack && range.consumer == nil { throw ValidationError("--ack needs --consumer") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if key != nil && (range.after != nil || range.since != nil || range.consumer != nil || limit != nil) {
            throw ValidationError("--key reads the whole kept history: give it without --after, --since, --consumer or --limit")
        }
        if entity != nil && key == nil { throw ValidationError("--entity needs --key") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try ack ? storeOptions.open(create: false) : storeOptions.openForReading()
            let targets = try reports.targets()
            var acknowledged: (name: String, from: Int64, through: Int64)?
            try store.read { (snapshot: StoreSnapshot) throws in
                if let key {
                    guard let chosen = entity.map({ store.entity(named: $0) }) ?? store.entities.first else {
                        throw ValidationError("unknown entity '\(entity ?? "")' (the store has: \(store.entities.map(\.name).joined(separator: ", ")))")
                    }
                    // Its children: the entities keyed by its key and more (a child's key begins with its parent's).
                    let children = store.entities.filter { $0.uniqueKey.count > chosen.uniqueKey.count && Array($0.uniqueKey.prefix(chosen.uniqueKey.count)) == chosen.uniqueKey }
                    try targets.write(try ReportContent(storePath: store.path, timelineOf: key, entity: chosen, children: children.map(\.name), in: snapshot),
                                      store: store, in: snapshot)
                    return
                }
                let shown = try range.resolve(of: store, in: snapshot, limit: limit)
                let content = try ReportContent(storePath: store.path, after: shown.after, through: shown.through, filter: shown.filter, in: snapshot)
                try targets.write(content, store: store, in: snapshot)
                if let name = range.consumer { acknowledged = (name, shown.after, shown.through) }
            }
            if ack, let acknowledged, acknowledged.through > acknowledged.from {
                try store.write { (tx: StoreWriteTransaction) throws in
                    try tx.advanceConsumerToken(acknowledged.name, from: acknowledged.from, to: acknowledged.through)
                }
            }
            return .success
        }
    }
}

struct HistoryPurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete history every consumer has consumed (or older history, with --force).",
        discussion: """
            Without options, deletes history up to the oldest token among all consumers (views \
            included): nothing any consumer still needs. --keep DAYS deletes transactions older than \
            that, still never what a consumer needs (for stores without consumers). --before \
            DATE|TOKEN deletes transactions before a date, or up to and including a token's \
            transaction; if consumers still need them this needs --force, and those consumers get \
            "expired token" (exit 3) until they are reset or rebuilt. The purged range is recorded.

            Examples:
              importer history purge
              importer history purge --keep 30
              importer history purge --before 2026-01-01 --force
              importer history purge --before 90d --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Keep the transactions of the last DAYS days.", valueName: "days"))
    var keep: Int?

    @Option(name: .long, help: ArgumentHelp("Purge transactions before this date (2026-01-01, 2026-01-01T08:30:00+02:00, 30d), or up to and including this token's.", valueName: "date|token"))
    var before: String?

    @Flag(name: .long, help: "Purge even history that consumers still need (they become expired).")
    var force = false

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    @OptionGroup(title: "Metrics options") var metrics: MetricsOptions

    func validate() throws {
        if keep != nil && before != nil { throw ValidationError("give --keep or --before, not both") }
        if let keep, keep < 0 { throw ValidationError("--keep must be 0 or more days") }
        if let before { _ = try TokenOrDate(before, option: "--before") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging, metrics: metrics.target(command: "history_purge", store: storeOptions)) { _ in
            let store = try storeOptions.open(create: false)
            let result = try store.write { (tx: StoreWriteTransaction) throws -> PurgeResult in
                var bound = PurgeBound.consumers
                if let keep { bound = .keepDays(keep) }
                if let before {
                    switch try TokenOrDate(before, option: "--before") {
                    case .date(let timestamp): bound = .beforeDate(timestamp)
                    case .token(let token): bound = .throughTransaction(try store.parseToken(token).transactionNumber)
                    }
                }
                let (through, expiring) = try tx.snapshot.purgeTarget(bound, force: force)
                return try tx.purgeHistory(through: through, expiring: expiring)
            }
            let output = OutputSink()
            PurgeReport(result).render(as: format, to: output)
            try output.flush()
            return .success
        }
    }
}
