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
            try storeOptions.read { store, output in
                let purged = try store.purgedThrough()
                let head = try store.lastTransactionNumber()
                let consumers = Dictionary(try ConsumerRegistry(store: store).all().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                let views = try ViewRegistry(store: store).all().map { view in
                    guard let consumer = consumers[view.name] else { throw HistoryError.unknownConsumer(view.name) }
                    return (view, consumer)
                }
                switch format {
                case .text:
                    if views.isEmpty { output.write("No views.\n") }
                    for (view, consumer) in views {
                        let aggregates = view.aggregates.map { "\($0.name) = \($0.function.rawValue)(\($0.attribute ?? "*"))" }
                        output.write("\(view.name): \(view.entity) grouped by \(view.groupBy.joined(separator: ", ")); \(aggregates.joined(separator: ", "))\n")
                        output.write("  token at transaction \(consumer.tokenNumber) of \(head)\(consumer.isExpired(purgedThrough: purged) ? ", EXPIRED" : ""), last replay \(consumer.lastReplayAt ?? "never")\n")
                    }
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginArray()
                        for (view, consumer) in views {
                            json.beginObject()
                            json.field("name", view.name)
                            json.field("entity", view.entity)
                            json.field("group_by", strings: view.groupBy)
                            json.key("aggregates")
                            json.beginArray()
                            for aggregate in view.aggregates {
                                json.beginObject()
                                json.field("name", aggregate.name)
                                json.field("function", aggregate.function.rawValue)
                                json.field("attribute", aggregate.attribute.map(Value.text) ?? .null)
                                json.endObject()
                            }
                            json.endArray()
                            json.field("transaction", consumer.tokenNumber)
                            json.field("lag", Int(head - consumer.tokenNumber))
                            json.field("expired", consumer.isExpired(purgedThrough: purged))
                            json.endObject()
                        }
                        json.endArray()
                    }
                }
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
        @Option(name: .long, help: "Output format: text, json or csv.") var format: TableFormat = .text

        /// A table for people, a JSON array of objects, or CSV.
        enum TableFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json, csv
        }

        func run() throws {
            try storeOptions.read { store, output in
                let view = try ViewRegistry(store: store).view(named: name)
                let (columns, rows) = try ViewMaintainer(store: store).rows(view)
                switch format {
                case .text:
                    // Sums carry the rounding of floating-point addition: 12 significant digits for people.
                    let cells = rows.map { $0.map { value in
                        if case .real(let x) = value { return String(format: "%.12g", x) }
                        return value.description
                    } }
                    output.write(TextTable.render(columns: columns, rows: cells))
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginArray()
                        for row in rows {
                            json.beginObject()
                            for (column, value) in zip(columns, row) { json.field(column, value) }
                            json.endObject()
                        }
                        json.endArray()
                    }
                case .csv:
                    output.write(TableCSV.header(columns))
                    for row in rows { output.write(TableCSV.row(row)) }
                }
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
                let built = try store.write { () throws -> (ViewEffect, records: Int, groups: Int, entity: String) in
                    let view = try ViewRegistry(store: store).view(named: name)
                    let maintainer = ViewMaintainer(store: store)
                    let effect = try maintainer.rebuild(view)
                    let records = try store.entity(named: view.entity).map { try store.records.recordCount(of: $0) } ?? 0
                    return (effect, records, try maintainer.rows(view).rows.count, view.entity)
                }
                let (effect, records, groups, entity) = built
                let output = OutputSink()
                switch format {
                case .text:
                    output.write("Rebuilt \(name) from \(records) \(entity) record\(records == 1 ? "" : "s"): \(groups) group\(groups == 1 ? "" : "s") ")
                    output.write("(\(effect.insertedGroups) inserted, \(effect.updatedGroups) updated, \(effect.deletedGroups) deleted against the rows it replaced), token at transaction \(effect.throughTransaction).\n")
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginObject()
                        json.field("view", name)
                        json.field("entity", entity)
                        json.field("records", records)
                        json.field("groups", groups)
                        json.field("inserted", effect.insertedGroups)
                        json.field("updated", effect.updatedGroups)
                        json.field("deleted", effect.deletedGroups)
                        json.field("transaction", effect.throughTransaction)
                        json.field("token", store.token(effect.throughTransaction).description)
                        json.endObject()
                    }
                }
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
                let (names, differences) = try store.read { () throws -> ([String], [ViewDifference]) in
                    let registry = ViewRegistry(store: store)
                    let views = try name.map { [try registry.view(named: $0)] } ?? registry.all()
                    return (views.map(\.name), try views.flatMap { try ViewMaintainer(store: store).verify($0) })
                }
                let output = OutputSink()
                switch format {
                case .text:
                    for difference in differences { output.write("\(difference)\n") }
                    if differences.isEmpty { output.write("Views match their full recomputation.\n") }
                case .json:
                    JSONWriter.document(to: output) { json in
                        json.beginObject()
                        json.field("views", strings: names)
                        json.field("match", differences.isEmpty)
                        json.key("differences")
                        json.beginArray()
                        for difference in differences {
                            json.beginObject()
                            json.field("view", difference.view)
                            json.key("group")
                            json.beginArray()
                            for value in difference.group { json.value(value) }
                            json.endArray()
                            json.field("column", difference.column)
                            json.field("incremental", difference.incremental ?? .null)
                            json.field("recomputed", difference.recomputed ?? .null)
                            json.endObject()
                        }
                        json.endArray()
                        json.endObject()
                    }
                }
                try output.flush()
                return differences.isEmpty ? .success : .noChanges
            }
        }
    }
}

/// Columns padded to their widest cell.
enum TextTable {
    static func render(columns: [String], rows: [[String]]) -> String {
        var widths = columns.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ") + "\n"
        }
        return line(columns) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }
}
