import ArgumentParser
import Foundation
import ImporterKit
import ImporterMetrics
import Logging

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Import feeds in one store transaction and print what changed.",
        discussion: """
            Each FEED (a file, an http(s) URL, or - for standard input) is read as a stream, mapped by the model \
            (the built-in fireball model, or --model FILE), and upserted by its unique key. The whole \
            run is one store transaction: a malformed feed leaves the store exactly as it was. Records \
            equal to the stored ones write nothing; a run that changes nothing records no history \
            transaction. Records that cannot be mapped are rejects: up to --max-rejects of them are \
            kept in the store (importer rejects) and the good records are imported.

            --sync makes the feeds a full snapshot: stored records they no longer hold are \
            deleted, within guards (an error answer, an empty feed or more than --max-delete \
            deletes is refused with exit 65, nothing written). --dry-run does it all, prints \
            the report marked as a dry run, and rolls back. --exit-code exits 1 when nothing \
            changed, for make.

            A URL feed is fetched before the store is locked, conditionally (If-None-Match, \
            If-Modified-Since) with what the store kept of its last import: when every feed is \
            a URL that has not changed, the run says "not modified" and writes nothing (exit 0; \
            1 with --exit-code). 408, 429 (Retry-After honoured), 5xx and connection errors are \
            retried until --deadline, then exit 75 (try later); another 4xx exits 69; an HTML \
            answer for a JSON feed exits 65. Nothing is written in any of these cases.

            Examples:
              importer run --author nightly SampleData/fireball-2024.json
              importer run --sync --exit-code SampleData/fireball-2026.json
              importer run --sync --dry-run --format json SampleData/fireball-2026.json
              importer run --format json --report html --output run.html feed.json
              importer run --model cneos.yaml --max-rejects 10 --rejects bad.ndjson x.csv
              importer run --sync --deadline 5m 'https://ssd-api.jpl.nasa.gov/fireball.api'
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
    @OptionGroup(title: "Model options") var modelOptions: ModelOptions

    @Option(name: .long, help: ArgumentHelp("The history transaction's author (default: $IMPORTER_AUTHOR, else \(ImportOptions.defaultAuthor)).", valueName: "name"))
    var author: String?

    @Option(name: .long, help: ArgumentHelp("Stamp the transaction with this time instead of now, to backfill history from archived snapshots oldest first: a date (2024-03-01) or an ISO 8601 date and time; one before the store's last transaction is refused (65).", valueName: "datetime"))
    var timestamp: String?

    @Flag(name: .long, help: "The feeds are a full snapshot: delete stored records that no feed holds (each delete is recorded with its tombstone).")
    var sync = false

    @Option(name: .customLong("window-from"), help: ArgumentHelp("With --sync of a feed whose mapping declares sync: {scope: ATTRIBUTE}, delete only stored records whose scope value is this or later (a date, a date and time, a number), instead of the window the feed covers.", valueName: "value"))
    var windowFrom: String?

    @Option(name: .customLong("window-to"), help: ArgumentHelp("With --sync of a scoped feed, delete only stored records whose scope value is this or earlier.", valueName: "value"))
    var windowTo: String?

    @Flag(name: .customLong("allow-empty"), help: "With --sync, let a feed with no records delete stored records (refused by default: an empty answer is a suspect).")
    var allowEmpty = false

    @Flag(name: .customLong("allow-unframed"), help: "With --sync, let an NDJSON or CSV answer with neither a Content-Length nor chunked framing drive the sync (refused by default, exit 65: cut at a line boundary, it reads as whole, and its deletes would follow the cut).")
    var allowUnframed = false

    @Flag(name: .customLong("require-final-newline"), help: "Refuse (exit 65) a CSV feed whose last row ends without a line break, as a download cut inside its last field does (a warning otherwise).")
    var requireFinalNewline = false

    @Option(name: .customLong("max-delete"), help: ArgumentHelp("With --sync, the most records of an entity it may delete: a count or a percentage of the stored records (default 50%; 100% allows all). A run over the bound is refused (exit 65) and writes nothing.", valueName: "N|P%"))
    var maxDelete: String = "50%"

    @Option(name: .customLong("max-nulled"), help: ArgumentHelp("The most records of an entity on which the run may set one attribute from a value to null: a count or a percentage of the records holding a value for it (default 50%; 100% allows all). A run over the bound (a field the upstream dropped, a path that stopped matching) is refused (exit 65) and writes nothing.", valueName: "N|P%"))
    var maxNulled: String = "50%"

    @Option(name: .customLong("max-updated"), help: ArgumentHelp("The most records of an entity on which the run may change one attribute (its key aside): a count or a percentage of the records stored before it (default 50%; 100% allows all). A run over the bound (an upstream that changed a unit or a format) is refused (exit 65) and writes nothing.", valueName: "N|P%"))
    var maxUpdated: String = "50%"

    @OptionGroup(title: "Report options") var reports: ReportOutputOptions

    @OptionGroup(title: "Metrics options") var metrics: MetricsOptions

    @Flag(name: .long, help: "Exit with 1 when nothing changed (like git diff --exit-code).")
    var exitCode = false

    @Flag(name: .long, help: "When the store holds another version of the model, first apply the steps that need no choice (renamed attributes: renamed-from:), in the run's transaction and recorded in history; other steps still refuse the run (see importer migrate).")
    var migrate = false

    @Flag(name: .customLong("no-replay"), help: "Do not create or replay derived views (run `importer replay` later).")
    var noReplay = false

    @Option(name: .customLong("max-rejects"), help: ArgumentHelp("Rejected records tolerated; past this the run fails (exit 65) and imports nothing.", valueName: "count"))
    var maxRejects = 0

    @Option(name: .long, help: ArgumentHelp("Also write rejected records to this file as NDJSON.", valueName: "file"), completion: .file())
    var rejects: String?

    @Flag(name: .customLong("dry-run"), help: "Do the whole import and replay, print the report, then roll back: the store is unchanged.")
    var dryRun = false

    @Flag(name: .long, help: "Fetch URL feeds in full, ignoring the ETag, Last-Modified and hash kept from their last import.")
    var refetch = false

    @Option(name: .long, help: ArgumentHelp("How long URL feeds may take, retries of temporary failures (503, 429, timeouts) included; past it the run exits 75 (try later) and writes nothing (default 90s).", valueName: "90s|5m"))
    var deadline = "90s"

    @Option(name: .long, help: ArgumentHelp("A PEM file of CA certificates trusted for https feeds, besides the system's.", valueName: "file"), completion: .file())
    var cacert: String?

    @Option(name: .customLong("temp-dir"), help: ArgumentHelp("Where a large feed out of key order is sorted, and a PostgreSQL first load keeps where each record came from, in unnamed temporary files removed however the run ends (default: the store's directory, or $TMPDIR for a PostgreSQL store). A full disk there is exit 74, the store untouched.", valueName: "dir"), completion: .directory)
    var temporaryDirectory: String?

    @Option(name: .customLong("sort-memory"), help: ArgumentHelp("How much memory a feed out of key order may hold for sorting: past half of it, runs of that half are sorted and written to a temporary file while the other half fills (default 16M; K, M, G).", valueName: "size"))
    var sortMemory = "16M"

    @Argument(help: ArgumentHelp("Feeds to import: files, http(s) URLs, or - for standard input; none: the 'url' of each --mapping (or of every mapping that has one).", valueName: "feed"), completion: .file())
    var feeds: [String] = []

    func validate() throws {
        guard feeds.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("standard input (-) can be read only once") }
        if let author, author.isEmpty { throw ValidationError("--author must not be empty") }
        if let timestamp { _ = try DateArgument.parse(timestamp, option: "--timestamp") }
        guard maxRejects >= 0 else { throw ValidationError("--max-rejects must be 0 or more") }
        if (windowFrom != nil || windowTo != nil) && !sync { throw ValidationError("--window-from and --window-to bound a --sync: give --sync too") }
        guard DeleteBound(parsing: maxDelete) != nil else { throw ValidationError("--max-delete: '\(maxDelete)' is not a count or a percentage (e.g. 500 or 50%)") }
        guard FetchDuration(parsing: deadline) != nil else { throw ValidationError("--deadline: '\(deadline)' is not a duration (e.g. 90s, 5m, 1h)") }
        guard ByteSize(parsing: sortMemory) != nil else { throw ValidationError("--sort-memory: '\(sortMemory)' is not a size (e.g. 64M)") }
        if let temporaryDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: temporaryDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--temp-dir: '\(temporaryDirectory)' is not a directory")
            }
        }
        guard DeleteBound(parsing: maxNulled) != nil else { throw ValidationError("--max-nulled: '\(maxNulled)' is not a count or a percentage (e.g. 500 or 50%)") }
        guard DeleteBound(parsing: maxUpdated) != nil else { throw ValidationError("--max-updated: '\(maxUpdated)' is not a count or a percentage (e.g. 500 or 50%)") }
        if modelOptions.mapping.count > 1 && feeds.contains("-") {
            throw ValidationError("standard input (-) can be read by one --mapping only; save it to a file to read it with several")
        }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging, metrics: metrics.target(command: "run", store: storeOptions)) { observed in
            let model = try modelOptions.loadModel()
            if feeds.isEmpty, modelOptions.mapping.isEmpty, !model.feeds.contains(where: { $0.source != nil }) {
                throw ValidationError("give at least one feed (a file, an http(s) URL, or - for standard input), or a --mapping that has a 'url'")
            }
            let inputs = try modelOptions.inputs(feeds, model: model, fetchLimits: fetchLimits)
            var options = importOptions
            options.timestamp = try options.timestamp ?? Self.snapshotTime(of: inputs)
            let run = ImportRun(model: model, inputs: inputs, options: options, rejectsPath: rejects,
                                storeExists: Store.isPostgres(storeOptions.path) || FileManager.default.fileExists(atPath: storeOptions.path))
            run.cancellation = InterruptHandler.current?.flag
            let logger = storeOptions.logging.makeLogger()
            run.logger = logger
            let progress = ProgressLine.isTerminal && !storeOptions.logging.quiet ? ProgressLine() : nil
            run.onProgress = progress.map { line in { line.update($0) } }
            run.onPhase = progress.map { line in { line.phase($0) } }
            run.onImported = { progress?.finish() }
            let result: ImportResult
            do {
                result = try run.run(open: { temporary in try temporary.map { try Store(path: $0) } ?? storeOptions.open(create: true) },
                                     reportingTo: try reports.targets(), sources: feeds.map { FeedSelection.url($0).map { RedactedURL.text($0) } ?? $0 },
                                     words: RemedyWording.words)
            } catch {
                reportFailure(error)
                throw error
            }
            observed.record(result)
            summarizeRejects(result, logger: logger)
            return exitCode && result.transactionNumber == nil ? .noChanges : .success
        }
    }

    /// The import options the flags (and `$IMPORTER_AUTHOR`) give.
    private var importOptions: ImportOptions {
        let environmentAuthor = ProcessInfo.processInfo.environment["IMPORTER_AUTHOR"].flatMap { $0.isEmpty ? nil : $0 }
        var options = ImportOptions(author: author ?? environmentAuthor ?? ImportOptions.defaultAuthor, context: "run", sync: sync)
        options.maxRejects = maxRejects
        options.replayViews = !noReplay
        options.migrate = migrate
        options.timestamp = timestamp.flatMap { DateArgument.timestamp($0) }
        options.modelSource = modelOptions.model ?? options.modelSource
        options.dryRun = dryRun
        options.allowEmpty = allowEmpty
        options.allowUnframed = allowUnframed
        options.requireFinalLineBreak = requireFinalNewline
        options.maxDelete = DeleteBound(parsing: maxDelete) ?? .percent(50)
        (options.windowFrom, options.windowTo) = (windowFrom, windowTo)
        options.maxNulled = DeleteBound(parsing: maxNulled) ?? .percent(50)
        options.maxUpdated = DeleteBound(parsing: maxUpdated) ?? .percent(50)
        options.refetch = refetch
        options.temporaryDirectory = temporaryDirectory
        options.sortRunBytes = ByteSize(parsing: sortMemory)?.bytes ?? options.sortRunBytes
        return options
    }

    /// The time the feeds' file names give (`timestamp-from:` of their mappings), nil when none has
    /// the rule; a name the rule does not read, or two feeds of different times, are errors.
    static func snapshotTime(of inputs: [FeedInput]) throws -> String? {
        var found: (time: String, path: String)?
        for input in inputs where input.request == nil {
            guard let rule = input.mapping.timestampFrom else { continue }
            guard let text = rule.time(inFileAt: input.path),
                  let time = DateArgument.timestamp(text.replacingOccurrences(of: " ", with: "T") + (text.count == 19 ? "Z" : "")) else {
                throw ValidationError("\(input.path): its name has no time that timestamp-from reads ('\(rule.pattern)'\(rule.format.map { ", format \($0)" } ?? "")); give --timestamp")
            }
            if let found, found.time != time {
                throw ValidationError("\(found.path) and \(input.path) give different times (timestamp-from): import them in runs of their own")
            }
            found = (time, input.path)
        }
        return found?.time
    }

    /// The limits of fetching URL feeds the flags give.
    private var fetchLimits: FetchLimits {
        var limits = FetchLimits()
        limits.deadline = FetchDuration(parsing: deadline) ?? limits.deadline
        limits.caFile = cacert
        return limits
    }

    /// `--format json`: a run that failed before it had a report (a refused run printed its own)
    /// still prints one document, with the error in `errors`.
    private func reportFailure(_ error: any Error) {
        guard reports.format == .json else { return }
        if case ImportError.refused = error { return }
        var rejects: [Reject] = []
        if case ImportError.tooManyRejects(_, _, let first) = error { rejects = first }
        let status = ExitStatus.forError(error)
        let output = OutputSink()
        FailedRunReport.renderJSON(message: RemedyWording.message(for: error), exitCode: status.rawValue, rejects: rejects, dryRun: dryRun, to: output)
        try? output.flush()
    }

    /// Tolerated rejects, said on standard error with the command that shows them.
    private func summarizeRejects(_ result: ImportResult, logger: Logger) {
        let count = result.totals.rejected
        guard count > 0 else { return }
        let records = "\(count) record\(count == 1 ? "" : "s") rejected"
        if dryRun {
            logger.warning("\(records) (dry run: not kept)")
        } else if let run = result.rejectRun {
            let store = (storeOptions.store.map { " --store \(Self.shellQuoted($0))" } ?? "")
                + (storeOptions.pgSchema.map { " --pg-schema \(Self.shellQuoted($0))" } ?? "")
            logger.warning("\(records), kept in the store: importer rejects show \(run)\(store)")
        }
    }

    /// `text` as one shell word (single-quoted unless it is plain).
    static func shellQuoted(_ text: String) -> String {
        text.allSatisfy({ $0.isLetter || $0.isNumber || "/._-+:@".contains($0) }) ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
