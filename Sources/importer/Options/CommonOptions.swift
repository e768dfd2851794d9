import ArgumentParser
import Foundation
import ImporterKit
import ImporterMetrics

/// `--store`, `--pg-schema`, `--wait`/`--no-wait` and the logging options, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store's SQLite file, or a postgres://user@host:port/database URL (default: $IMPORTER_STORE, else importer.sqlite).", valueName: "path"), completion: .file())
    var store: String?

    @Option(name: .customLong("pg-schema"), help: ArgumentHelp("The schema of a PostgreSQL store (overrides the URL's ?schema=; default public). Not for SQLite stores.", valueName: "name"))
    var pgSchema: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another process's lock before failing with exit code 75.", valueName: "seconds"))
    var wait: Double = 5

    @Flag(name: .customLong("no-wait"), help: "Fail at once (exit 75) when another process holds the lock.")
    var noWait = false

    @OptionGroup var logging: LoggingOptions

    var path: String { store ?? Store.defaultPath() }

    func validate() throws {
        guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds") }
        if pgSchema != nil, !Store.isPostgres(path) {
            throw ValidationError("--pg-schema names a schema of a PostgreSQL store, but the store \(path) is an SQLite file (give a postgres:// URL, or drop --pg-schema)")
        }
    }

    /// Opens the store to write (creating it when `create`); writes wait for the lock as
    /// `--wait`/`--no-wait` say.
    func open(create: Bool) throws -> Store {
        let milliseconds = noWait ? 0 : Int(wait * 1000)
        let store = try Store.open(path, schema: pgSchema, options: Store.Options(busyTimeoutMilliseconds: milliseconds, create: create, readOnly: false))
        InterruptHandler.current?.attach(store)
        return store
    }

    /// Opens the existing store read-only: commands that only read work on a store this user may
    /// not write (a read-only file or file system).
    func openForReading() throws -> Store {
        let milliseconds = noWait ? 0 : Int(wait * 1000)
        let store = try Store.open(path, schema: pgSchema, options: Store.Options(busyTimeoutMilliseconds: milliseconds, create: false, readOnly: true))
        InterruptHandler.current?.attach(store)
        return store
    }

    /// The frame of a command that only reads: opens the existing store, runs `body` in one read
    /// transaction (handing it its snapshot) with a buffered standard output, flushes it, and
    /// reports errors as `runReportingErrors` does.
    func read(_ body: (Store, StoreSnapshot, OutputSink) throws -> Void) throws {
        try runReportingErrors(logging) {
            let store = try openForReading()
            let output = OutputSink()
            try store.read { (snapshot: StoreSnapshot) throws in try body(store, snapshot, output) }
            try output.flush()
            return .success
        }
    }
}

/// Prints what a command did: `text` for people, or the members `fill` writes as one JSON object.
func confirmation(_ text: String, format: ListFormat, _ fill: @escaping (inout JSONWriter) -> Void) throws {
    let output = OutputSink()
    Confirmation(text, fill).render(as: format, to: output)
    try output.flush()
}

extension ReportFormat: ExpressibleByArgument {}

extension ListFormat: ExpressibleByArgument {}
extension FeedFormat: ExpressibleByArgument {}

/// `--after`, `--since` or `--consumer` (at most one): which transactions a history command reads.
struct HistoryRangeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Only transactions after this token.", valueName: "token"))
    var after: String?

    @Option(name: .long, help: ArgumentHelp("Only transactions at or after this date: 2026-01-01, 2026-01-01T08:30:00+02:00 (ISO 8601; UTC without an offset), or a time ago: 30m, 12h, 7d.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("The pending changes of this consumer (after its token, filtered).", valueName: "name"), completion: .custom(StoreNames.consumers))
    var consumer: String?

    func validate() throws {
        if [after, since, consumer].compactMap({ $0 }).count > 1 { throw ValidationError("give at most one of --after, --since and --consumer") }
        if let since { _ = try DateArgument.parse(since, option: "--since") }
    }

    /// Where the chosen option starts the history read.
    func start() throws -> HistoryRange.Start {
        if let after { return .afterToken(after) }
        if let since { return .since(timestamp: try DateArgument.parse(since, option: "--since")) }
        if let consumer { return .consumer(consumer) }
        return .beginning
    }

    /// The transactions of `store` the options name, as `snapshot` sees them, up to `through` (a
    /// token) and at most `limit` of them.
    func resolve(of store: Store, in snapshot: StoreSnapshot, through: String? = nil, limit: Int? = nil) throws -> HistoryRange {
        try HistoryRange.resolve(try start(), storeID: store.storeID, in: snapshot, through: through, limit: limit)
    }
}

/// The token, or the date (`DateArgument`), that an option taking either names.
enum TokenOrDate {
    case token(String)
    case date(String)

    init(_ text: String, option: String) throws {
        if let timestamp = DateArgument.timestamp(text) {
            self = .date(timestamp)
        } else if text.count >= 16, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            self = .token(text)
        } else {
            throw ValidationError("\(option): '\(text)' is neither a token nor a date; give a token (see importer history) or \(DateArgument.examples)")
        }
    }
}

/// Where reports go, by one rule kept by every command: `--format FORMAT` is the report on
/// standard output; `--report FORMAT` with `--output FILE` pairs are report files (a `--report`
/// without its `--output` also goes to standard output; an `--output` without its `--report`
/// takes the format from the extension). At most one report goes to standard output.
struct ReportOutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A report file's format: text, json, ndjson, markdown, csv or html (repeatable; each pairs with the --output at the same position).", valueName: "format"))
    var report: [ReportFormat] = []

    @Option(name: .long, help: ArgumentHelp("Write the matching --report to this file (repeatable): a regular file is replaced atomically, a device or FIFO written into, - is standard output; without its --report the format comes from the extension (.json, .ndjson, .md, .csv, .html, .txt).", valueName: "file"), completion: .file())
    var output: [String] = []

    @Option(name: .long, help: ArgumentHelp("The report printed on standard output: text (default), json, ndjson, markdown, csv or html.", valueName: "format"))
    var format: ReportFormat?

    func validate() throws {
        _ = try targets()
    }

    func targets() throws -> ReportTargets {
        do {
            guard let format else { return try ReportTargets(formats: report, outputs: output) }
            guard !report.isEmpty || !output.isEmpty else { return try ReportTargets(formats: [format], outputs: []) }
            return try ReportTargets(formats: report, outputs: output).addingStandardOutput(format)
        } catch {
            throw ValidationError(RemedyWording.message(for: error))
        }
    }
}

/// `--model`, `--mapping` and `--feed-format`: which model reads the feeds, and how.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A model file (YAML or JSON; see `importer model show`). Default: the built-in fireball model.", valueName: "file"), completion: .file(extensions: ["yaml", "yml", "json"]))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The model's feed mapping to read the feeds with (default: the only one, or the one whose format matches the file's extension). Repeatable: every feed is then read by each mapping named, all in one transaction (the records and the people of one registry document).", valueName: "name"))
    var mapping: [String] = []

    /// The former spelling of `--mapping`, still accepted.
    @Option(name: .customLong("feed"), help: .hidden)
    var deprecatedMapping: String?

    @Option(name: .customLong("feed-format"), help: ArgumentHelp("How to read the feeds: nasa-columnar, json, ndjson, xml or csv (default: the mapping's format).", valueName: "format"))
    var feedFormat: FeedFormat?

    func validate() throws {
        if !mapping.isEmpty && deprecatedMapping != nil { throw ValidationError("give --mapping (formerly --feed), not both") }
    }

    func loadModel() throws -> Model {
        try Self.loadModel(path: model)
    }

    /// The model file at `path`, or the built-in fireball model without one.
    static func loadModel(path: String?) throws -> Model {
        try path.map { try ModelFile.load(path: $0, checks: FeedMappingProblems.problems) } ?? FireballModel.model
    }

    func inputs(_ paths: [String], model: Model, fetchLimits: FetchLimits = FetchLimits()) throws -> [FeedInput] {
        var selection = FeedSelection(model: model, mappings: mapping + (deprecatedMapping.map { [$0] } ?? []), format: feedFormat)
        selection.fetchLimits = fetchLimits
        if paths.isEmpty { return try selection.inputsFromMappingURLs() }
        return try paths.flatMap { try selection.inputs(for: $0) }
    }
}

/// Runs a command body, logging library errors on standard error and exiting with their
/// documented code. SIGINT and SIGTERM roll the command's transaction back and exit 130 or 143
/// (`InterruptHandler`), unless `interruptible` is false (a command that handles them itself).
func runReportingErrors(_ logging: LoggingOptions? = nil, interruptible: Bool = true, _ body: () throws -> ExitStatus) throws {
    try runReportingErrors(logging, interruptible: interruptible, metrics: nil) { _ in try body() }
}

/// `runReportingErrors`, writing the run's metrics file (`--metrics-file`) once its exit code is
/// known, whatever it is: the body records what it observed; an error that ends the command early
/// (a bad feed, a refused fetch, a usage error) is written with its exit code. A metrics file that
/// cannot be written fails a command that succeeded, whatever status it chose (74), and is logged
/// beside one that failed.
func runReportingErrors(_ logging: LoggingOptions? = nil, interruptible: Bool = true, metrics: MetricsTarget?,
                        _ body: (inout RunObservation) throws -> ExitStatus) throws {
    let clock = ContinuousClock()
    let began = clock.now
    var observed = RunObservation()
    let outcome = commandOutcome(logging, interruptible: interruptible) { try body(&observed) }
    guard let metrics else { return try outcome.get() }
    do {
        try metrics.write(exitCode: outcome.exitCode, succeeded: outcome.succeeded, durationSeconds: PhaseTimes.seconds(began.duration(to: clock.now)), observed: observed)
    } catch {
        logError(error, logging)
        // Also over `run --exit-code`'s 1: a cron job must not read "nothing changed" when its
        // monitoring is broken.
        if outcome.succeeded { throw ExitCode(ExitStatus.forError(error).rawValue) }
    }
    try outcome.get()
}

/// How a command body ended: the status it returned, or the error it threw, already logged (an
/// `ExitCode` or a `ValidationError` is left to ArgumentParser, as it was thrown).
private struct CommandOutcome {
    var status: ExitStatus?
    var error: (any Error)?

    /// The body returned (whatever status it chose, e.g. 1 for `run --exit-code` with no changes).
    var succeeded: Bool { status != nil }

    /// The code the process exits with.
    var exitCode: Int32 {
        if let status { return status.rawValue }
        if let error = error as? ExitCode { return error.rawValue }
        if error is ValidationError { return ExitCode.validationFailure.rawValue }
        return ExitStatus.internalFailure.rawValue
    }

    /// Returns for success, else throws what ends the process with `exitCode`.
    func get() throws {
        if let error { throw error }
        if let status, status != .success { throw ExitCode(status.rawValue) }
    }
}

/// Runs `body` with the interrupt handler, logging a library error and turning it into the
/// `ExitCode` of its documented status.
private func commandOutcome(_ logging: LoggingOptions?, interruptible: Bool, _ body: () throws -> ExitStatus) -> CommandOutcome {
    let interrupts = interruptible ? InterruptHandler() : nil
    do {
        return CommandOutcome(status: try InterruptHandler.$current.withValue(interrupts) { try body() })
    } catch let error as ExitCode {
        return CommandOutcome(error: error)
    } catch let error as ValidationError {
        return CommandOutcome(error: error)
    } catch {
        var error = error
        if let signal = interrupts?.flag.raised, !(error is ImportError) {
            error = CommandInterrupted(signal: signal, cause: error)
        }
        logError(error, logging)
        return CommandOutcome(error: ExitCode((error as? CommandInterrupted)?.status.rawValue ?? ExitStatus.forError(error).rawValue))
    }
}

/// Logs `error` on standard error, in the command line's words.
private func logError(_ error: any Error, _ logging: LoggingOptions?) {
    let message = RemedyWording.message(for: error)
    if let logger = (logging ?? (try? LoggingOptions.parse([])))?.makeLogger() {
        logger.error("\(message)")
    } else {
        FileHandle.standardError.write(Data("importer: error: \(message)\n".utf8))
    }
}

/// A command stopped by a signal: what it was doing failed, and its transaction rolled back.
struct CommandInterrupted: Error, CustomStringConvertible {
    var signal: Int32
    var cause: any Error
    var status: ExitStatus { signal == SIGTERM ? .terminated : .interrupted }
    var description: String {
        "interrupted by \(InterruptHandler.name(signal)): the transaction was rolled back, nothing was written (\(RemedyWording.message(for: cause)))"
    }
}
