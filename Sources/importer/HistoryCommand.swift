import ArgumentParser
import Foundation
import ImporterKit

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List history transactions and their changes, or purge consumed history.",
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
              importer history --after AQ3k...AAAAAAAAAAI --format json
              importer history --consumer mailer --format ndjson --ack
              importer history --since 2026-11-01 --report html --output changes.html
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Only transactions after this token.", valueName: "token"))
    var after: String?

    @Option(name: .long, help: ArgumentHelp("Only transactions at or after this UTC date or datetime (YYYY-MM-DD[Thh:mm:ssZ]).", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("The pending changes of this consumer (after its token, filtered).", valueName: "name"))
    var consumer: String?

    @Flag(name: .long, help: "With --consumer: advance its token past the printed transactions once the output is written.")
    var ack = false

    @Option(name: .long, help: ArgumentHelp("At most this many transactions.", valueName: "count"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("A report format: text, json, ndjson, markdown, csv or html (repeatable; each pairs with an --output).", valueName: "format"))
    var report: [ReportFormat] = []

    @Option(name: .long, help: ArgumentHelp("Write the matching --report to this file, atomically (repeatable).", valueName: "file"))
    var output: [String] = []

    @Option(name: .long, help: ArgumentHelp("The format when there is a single report (same as --report).", valueName: "format"))
    var format: ReportFormat?

    func validate() throws {
        if [after, since, consumer].compactMap({ $0 }).count > 1 { throw ValidationError("give at most one of --after, --since and --consumer") }
        if format != nil && !report.isEmpty { throw ValidationError("give --format or --report, not both") }
        do { _ = try ReportTargets(formats: format.map { [$0] } ?? report, outputs: output) } catch { throw ValidationError(error.description) }
        if ack && consumer == nil { throw ValidationError("--ack needs --consumer") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.open(create: false)
            let registry = ConsumerRegistry(store: store)
            let targets = try ReportTargets(formats: format.map { [$0] } ?? report, outputs: output)
            var acknowledged: (name: String, from: Int64, through: Int64)?
            try store.connection.transaction(immediate: false) {
                let range = try HistoryRange.resolve(store: store, after: after, since: since, consumer: consumer, limit: limit)
                try targets.write(try ReportContent(store: store, after: range.after, through: range.through, filter: range.filter), store: store)
                if let name = consumer { acknowledged = (name, range.after, range.through) }
            }
            if ack, let acknowledged, acknowledged.through > acknowledged.from {
                try store.connection.transaction(immediate: true) {
                    try registry.advanceToken(acknowledged.name, from: acknowledged.from, to: acknowledged.through)
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
            DATE|TOKEN deletes transactions before a UTC date, or up to and including a token's \
            transaction; if consumers still need them this needs --force, and those consumers get \
            "expired token" (exit 3) until they are reset or rebuilt. The purged range is recorded.

            Examples:
              importer history purge
              importer history purge --keep 30
              importer history purge --before 2026-01-01 --force
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Keep the transactions of the last DAYS days.", valueName: "days"))
    var keep: Int?

    @Option(name: .long, help: ArgumentHelp("Purge transactions before this UTC date, or up to this token.", valueName: "date|token"))
    var before: String?

    @Flag(name: .long, help: "Purge even history that consumers still need (they become expired).")
    var force = false

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    func validate() throws {
        guard format == .text || format == .json else { throw ValidationError("--format must be text or json") }
        if keep != nil && before != nil { throw ValidationError("give --keep or --before, not both") }
        if let keep, keep < 0 { throw ValidationError("--keep must be 0 or more days") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.open(create: false)
            let purger = HistoryPurger(store: store)
            let result = try store.connection.transaction(immediate: true) { () throws -> PurgeResult in
                var bound = PurgeBound.consumers
                if let keep { bound = .keepDays(keep) }
                if let before {
                    if HistoryPurger.normalized(before) != nil {
                        bound = .beforeDate(before)
                    } else {
                        bound = .throughTransaction(try store.parseToken(before).transactionNumber)
                    }
                }
                let (through, expiring) = try purger.target(bound, force: force)
                return try purger.purge(through: through, expiring: expiring)
            }
            let output = OutputSink()
            switch format {
            case .json, .ndjson, .markdown, .csv, .html:
                var json = JSONWriter(output: output)
                json.beginObject()
                json.field("purged_through", result.purgedThrough)
                json.field("transactions", result.transactions)
                json.field("changes", result.changes)
                json.field("expired_consumers", strings: result.expiredConsumers)
                json.endObject()
                output.write("\n")
            case .text:
                output.write("Purged \(result.transactions) transaction(s) and \(result.changes) change(s); history is kept after transaction \(result.purgedThrough).\n")
                if !result.expiredConsumers.isEmpty {
                    output.write("Expired consumers: \(result.expiredConsumers.joined(separator: ", ")) (views: importer views rebuild NAME; others: importer consumers reset NAME)\n")
                }
            }
            try output.flush()
            return .success
        }
    }
}

/// The transactions a history command shows: after a token, since a date, or pending for a consumer.
struct HistoryRange {
    var after: Int64
    var through: Int64
    var filter: ChangeFilter

    static func resolve(store: Store, after: String?, since: String?, consumer: String?, through: String? = nil, limit: Int?) throws -> HistoryRange {
        var start: Int64 = 0
        var filter = ChangeFilter.all
        if let after { start = try store.parseToken(after).transactionNumber }
        if let since {
            guard let timestamp = HistoryPurger.normalized(since) else {
                throw ValidationError("--since: '\(since)' is not a date (YYYY-MM-DD) or UTC datetime")
            }
            start = try HistoryReader(store: store).lastTransaction(before: timestamp)
        }
        if let name = consumer {
            let registry = ConsumerRegistry(store: store)
            let consumer = try registry.consumer(named: name)
            try registry.checkNotExpired(consumer)
            start = consumer.tokenNumber
            filter = consumer.filter
        }
        var end = try store.lastTransactionNumber()
        if let through { end = min(end, try store.parseToken(through).transactionNumber) }
        if let limit { end = min(end, start + Int64(limit)) }
        return HistoryRange(after: start, through: max(start, end), filter: filter)
    }
}
