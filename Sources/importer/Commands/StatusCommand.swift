import ArgumentParser
import Foundation
import ImporterKit
import ImporterMetrics

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The store at a glance: file, schema, records, history, consumers, views, purged range.",
        discussion: """
            --format prometheus prints the store's gauges in Prometheus' text format (records per \
            entity, history size, oldest and newest transactions, purged range, each consumer's \
            and view's lag in transactions and seconds), for a scrape or a node_exporter textfile.

            Examples:
              importer status
              importer status --format json
              importer status --format prometheus > /var/lib/node_exporter/importer_store.prom
            """
    )

    /// What `status` prints: the list formats, or the store's gauges.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case text, json, prometheus
    }

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: "Output format: text, json or prometheus.")
    var format: Format = .text

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let status = try StoreStatus(store: store)
            let output = OutputSink()
            switch format {
            case .text: StatusReport(status).render(as: .text, to: output)
            case .json: StatusReport(status).render(as: .json, to: output)
            case .prometheus:
                let now = Date().timeIntervalSince1970
                let lags = try store.read { (snapshot: StoreSnapshot) throws -> [ConsumerLag] in try ConsumerLag.read(in: snapshot, now: now) }
                output.write(TextExposition.text(StoreMetrics(status: status, consumerLags: lags).families))
            }
            try output.flush()
            return .success
        }
    }
}
