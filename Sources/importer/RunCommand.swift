import ArgumentParser
import Foundation
import ImporterKit

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Import feeds in one store transaction and print what changed.",
        discussion: """
            Each FEED (a file, or - for standard input) is read as a stream, mapped by the built-in \
            fireball model, and upserted by its unique key. The whole run is one store transaction: \
            a malformed feed leaves the store exactly as it was. Records equal to the stored ones \
            write nothing; a run that changes nothing records no history transaction.

            Example: importer run --store fireballs.sqlite --author nightly SampleData/fireball-2024.json
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The history transaction's author (default: $IMPORTER_AUTHOR, else \(ImportOptions.defaultAuthor)).", valueName: "name"))
    var author: String?

    @Flag(name: .long, help: "The feeds are a full snapshot: delete stored records that no feed holds (each delete is recorded with its tombstone).")
    var sync = false

    @Option(name: .long, help: "Report format: text or json.")
    var format: ReportFormat = .text

    @Flag(name: .long, help: "Exit with 1 when nothing changed (like git diff --exit-code).")
    var exitCode = false

    @Flag(name: .customLong("no-replay"), help: "Do not create or replay derived views (run `importer replay` later).")
    var noReplay = false

    @Argument(help: ArgumentHelp("Feed files to import; - reads standard input.", valueName: "feed"))
    var feeds: [String]

    func validate() throws {
        guard !feeds.isEmpty else { throw ValidationError("give at least one feed (a file, or - for standard input)") }
        guard feeds.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("standard input (-) can be read only once") }
        if let author, author.isEmpty { throw ValidationError("--author must not be empty") }
    }

    func run() throws {
        try runReportingErrors {
            let store = try storeOptions.open(create: true)
            let environmentAuthor = ProcessInfo.processInfo.environment["IMPORTER_AUTHOR"].flatMap { $0.isEmpty ? nil : $0 }
            var options = ImportOptions(author: author ?? environmentAuthor ?? ImportOptions.defaultAuthor, context: "run", sync: sync)
            options.maxRejects = 0
            options.replayViews = !noReplay
            let mapping = FireballModel.apiFeed
            let session = ImportSession(store: store, model: FireballModel.model, options: options)
            let result = try session.run(feeds.map { FeedInput(path: $0, mapping: mapping) })
            let report = try RunReport(result: result, store: store)
            let output = OutputSink()
            try RunReportRenderer(store: store).render(report, as: format, to: output)
            try output.flush()
            return exitCode && report.transaction == nil ? .noChanges : .success
        }
    }
}
