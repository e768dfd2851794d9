import ArgumentParser
import Foundation
import ImporterKit

struct ViewsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "views",
        abstract: "Inspect, rebuild and verify the derived views.",
        discussion: """
            Views are aggregates of an entity (the model's views; the fireball model has \
            fireball_by_year and fireball_by_region), kept up to date by every run and by \
            importer replay.

            Examples:
              importer views list
              importer views show fireball_by_year --format csv
              importer views verify --format json
            """,
        subcommands: [List.self, Show.self, Rebuild.self, Verify.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the store's views: entity, groups, aggregates, token and lag.",
            discussion: """
                Examples:
                  importer views list
                  importer views list --format json
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try storeOptions.read { _, snapshot, output in
                try ViewListReport(in: snapshot).render(as: format, to: output)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a view's rows (one per group), in group order.",
            discussion: """
                Examples:
                  importer views show fireball_by_year
                  importer views show fireball_by_region --format csv > regions.csv
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The view's name.", completion: .custom(StoreNames.views)) var name: String
        @Option(name: .long, help: "Output format: text, json or csv.") var format: ViewRowsReport.Format = .text

        func run() throws {
            try storeOptions.read { store, snapshot, output in
                let view = try snapshot.view(named: name)
                let (columns, rows) = try ViewMaintainer(entities: store.entities).rows(view, in: snapshot)
                ViewRowsReport(columns: columns, rows: rows).render(as: format, to: output)
            }
        }
    }

    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute a view from its entity table and move its token to the head.",
            discussion: """
                The recovery for an expired view token, and a way to start a view afresh. Prints \
                what it built: the records read, the groups the view now holds, and how they \
                differ from the rows it replaced.

                Examples:
                  importer views rebuild fireball_by_year
                  importer views rebuild fireball_by_year --format json
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The view's name.", completion: .custom(StoreNames.views)) var name: String
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.open(create: false)
                let report = try store.write { (tx: StoreWriteTransaction) throws -> ViewRebuildReport in
                    try ViewRebuildReport.rebuild(name, storeID: store.storeID, entities: store.entities, in: tx)
                }
                let output = OutputSink()
                report.render(as: format, to: output)
                try output.flush()
                return .success
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare views with a full recomputation; exit 1 on any difference.",
            discussion: """
                Counts, minimums and maximums must be equal; sums and averages may differ by \
                floating-point summation order (relative 1e-9). JSON: {"views": [names], \
                "match": true|false, "differences": [{"view", "group", "column", "incremental", \
                "recomputed"}]}.

                Examples:
                  importer views verify
                  importer views verify fireball_by_year --format json
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The view's name (all views when omitted).", completion: .custom(StoreNames.views)) var name: String?
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.openForReading()
                let report = try store.read { (snapshot: StoreSnapshot) throws -> ViewVerifyReport in
                    try ViewVerifyReport.verify(name, entities: store.entities, in: snapshot)
                }
                let output = OutputSink()
                report.render(as: format, to: output)
                try output.flush()
                return report.matches ? .success : .noChanges
            }
        }
    }
}

extension ViewRowsReport.Format: ExpressibleByArgument {}
