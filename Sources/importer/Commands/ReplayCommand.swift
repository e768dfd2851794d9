import ArgumentParser
import Foundation
import ImporterKit

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Bring the derived views up to date from history.",
        discussion: """
            Replays the transactions after each view's token into the view, touching only the \
            groups the changes affect, and saves the view's token in the same SQLite transaction. \
            External consumers read with `importer history --consumer`, not here. A view whose \
            token is older than the kept history fails with exit code 3 unless --rebuild-expired.

            Examples:
              importer replay
              importer replay --view fireball_by_year --rebuild-expired --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("Only this view (repeatable; all views when omitted).", valueName: "name"), completion: .custom(StoreNames.views))
    var view: [String] = []

    /// The former spelling of `--view`, still accepted.
    @Option(name: .customLong("consumer"), help: .hidden)
    var deprecatedView: [String] = []

    @Flag(name: .customLong("rebuild-expired"), help: "Rebuild views whose token expired instead of failing.")
    var rebuildExpired = false

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    @OptionGroup(title: "Metrics options") var metrics: MetricsOptions

    func run() throws {
        try runReportingErrors(storeOptions.logging, metrics: metrics.target(command: "replay", store: storeOptions)) { _ in
            let store = try storeOptions.open(create: false)
            let effects = try store.write { (tx: StoreWriteTransaction) throws -> [ViewEffect] in
                let names = view + deprecatedView
                let views = names.isEmpty ? try tx.snapshot.allViews() : try names.map { try tx.snapshot.view(named: $0) }
                let maintainer = ViewMaintainer(entities: store.entities)
                // All together, so that the views of one entity share one scan of their changes.
                var expired: [String] = []
                let replayed = try maintainer.replay(views, in: tx, onExpired: rebuildExpired ? { error in
                    if case .expiredToken(let consumer, _, _, _) = error { expired.append(consumer) }
                } : nil)
                let rebuilt = try maintainer.rebuild(views.filter { expired.contains($0.name) }, in: tx)
                return views.compactMap { view in (replayed + rebuilt).first { $0.view == view.name } }
            }
            let output = OutputSink()
            ReplayReport(effects).render(as: format, to: output)
            try output.flush()
            return .success
        }
    }
}
