import ArgumentParser
import Foundation
import ImporterKit

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read and map feeds without writing anything: what would be imported, and every reject.",
        discussion: """
            Reads and maps each FEED exactly as `run` would and prints, per feed, how many records \
            would be imported, which attributes the feed supplies, and every reject with its \
            location, and per field in how many records it was present, null and repeated. With \
            --store (or $IMPORTER_STORE), the model is also checked against that store: a model the \
            store would refuse is exit 78, as `run` would (nothing is written). A store that does \
            not exist yet (a new cron setup) is checked as an empty one and is not created. \
            Without --store no store is opened.

            Exits 0 when every feed reads and at most --max-rejects records are rejected, 65 \
            otherwise (as `run` would), 66 when a feed is missing.

            Examples:
              importer check SampleData/fireball-2026.json
              importer check --store fireballs.sqlite --format json feed.json
              importer check --model fireball-xml.yaml --max-rejects 5 feed.xml
            """
    )

    @OptionGroup(title: "Model options") var modelOptions: ModelOptions
    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .customLong("max-rejects"), help: ArgumentHelp("Rejected records tolerated before the check fails.", valueName: "count"))
    var maxRejects = 0

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    @Argument(help: ArgumentHelp("Feed files; - reads standard input.", valueName: "feed"), completion: .file())
    var feeds: [String]

    func validate() throws {
        guard !feeds.isEmpty else { throw ValidationError("give at least one feed (a file, or - for standard input)") }
    }

    /// The store to check the model against: `--store`, else `$IMPORTER_STORE`, else none.
    private var storePath: String? {
        storeOptions.store ?? ProcessInfo.processInfo.environment["IMPORTER_STORE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let model = try modelOptions.loadModel()
            var inputs: [FeedInput] = []
            defer { SourceFetching.removeBodies(of: inputs) }
            // What a paged walk warns about goes with its first page's check.
            var walkWarnings: [Int: [String]] = [:]
            for input in try modelOptions.inputs(feeds, model: model) {
                let first = inputs.count
                inputs += try input.downloaded { walkWarnings[first, default: []].append($0) }
            }
            let held = try storePath.map { try checkModel(model, inputs: inputs, againstStoreAt: $0) }
            let output = OutputSink()
            var report = FeedCheckReport(format: format, output: output)
            var rejected = 0
            for (index, input) in inputs.enumerated() {
                // A feed, then its children as `run` reads them (not from standard input, read once).
                let children = input.path == "-" ? [] : model.childFeeds(of: input.mapping)
                var parents: Set<Int> = []
                var checks: [FeedCheck] = []
                for (position, mapping) in ([input.mapping] + children).enumerated() {
                    var feed = input
                    feed.mapping = mapping
                    feed.childLists = position == 0 ? model.childListPaths(of: mapping) : []
                    var check = try FeedChecker(model: model).check(feed, rejectedParents: parents) { report.reject($0) }
                    if position == 0 { (check.warnings, parents) = ((walkWarnings[index] ?? []) + check.warnings, check.rejectedRecords) }
                    checks.append(check)
                }
                // A bad child rejects its record, as `run` does.
                let withChildren = checks.dropFirst().reduce(into: Set<Int>()) { $0.formUnion($1.rejectedRecords) }.subtracting(parents)
                if !withChildren.isEmpty {
                    checks[0].mapped -= withChildren.count
                    checks[0].rejected += withChildren.count
                    checks[0].warnings.append("\(withChildren.count) \(checks[0].entity) record(s) rejected with their children: a child was rejected")
                }
                for check in checks {
                    rejected += check.rejected
                    report.feed(check)
                }
            }
            report.finish(store: held, at: storePath, rejected: rejected)
            try output.flush()
            return rejected > maxRejects ? .badInput : .success
        }
    }

    /// The model checked against the store at `path` (`StoreModelCheck`); a store that does not
    /// exist yet is not created, and what the check registers is rolled back.
    private func checkModel(_ model: Model, inputs: [FeedInput], againstStoreAt path: String) throws -> StoreModelCheck {
        var options = storeOptions
        options.store = path
        let store: Store
        do {
            store = try options.open(create: false)
        } catch StoreError.notFound {
            return .absent
        }
        return try store.inTransaction { (tx: StoreWriteTransaction) throws -> TransactionCompletion<StoreModelCheck> in
            .rollback(try StoreModelCheck.check(model, inputs: inputs, in: tx))
        }
    }
}
