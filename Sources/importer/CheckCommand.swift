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
            let inputs = try modelOptions.inputs(feeds, model: model)
            let held = try storePath.map { try Self.checkModel(model, inputs: inputs, againstStoreAt: $0, options: storeOptions) }
            let output = OutputSink()
            var json = JSONWriter(output: output)
            if format != .text { json.beginObject(); json.key("feeds"); json.beginArray() }
            var rejected = 0
            for input in inputs {
                if format != .text { json.beginObject(); json.key("rejects"); json.beginArray() }
                let check = try FeedChecker(model: model).check(input) { reject in
                    if format == .text { output.write("rejected: \(reject)\n") } else { json.writeReject(reject) }
                }
                rejected += check.rejected
                if format == .text {
                    output.write("\(check.source): \(check.records) record(s) of \(check.entity) (mapping \(check.feed), \(check.format.rawValue)): \(check.mapped) would be imported, \(check.rejected) rejected\n")
                    output.write("  supplies: \(check.supplied.joined(separator: ", "))\n")
                    for field in check.fields {
                        var line = "  field \(field.field): present in \(field.present), null in \(field.null)"
                        if field.repeated > 0 { line += ", repeated in \(field.repeated)" }
                        line += ", rejected in \(field.rejected) of \(check.records) record(s)"
                        output.write(line + "\n")
                    }
                    for warning in check.warnings { output.write("  warning: \(warning)\n") }
                } else {
                    json.endArray()
                    json.field("source", check.source)
                    json.field("mapping", check.feed)
                    json.field("format", check.format.rawValue)
                    json.field("entity", check.entity)
                    json.field("records", check.records)
                    json.field("mapped", check.mapped)
                    json.field("rejected", check.rejected)
                    json.field("supplies", strings: check.supplied)
                    json.key("fields")
                    json.beginArray()
                    for field in check.fields {
                        json.beginObject()
                        json.field("field", field.field)
                        json.field("attributes", strings: field.attributes)
                        json.field("present", field.present)
                        json.field("null", field.null)
                        json.field("repeated", field.repeated)
                        json.field("rejected", field.rejected)
                        json.endObject()
                    }
                    json.endArray()
                    json.field("warnings", strings: check.warnings)
                    json.endObject()
                }
            }
            writeStore(held, rejected: rejected, json: &json, output: output)
            try output.flush()
            return rejected > maxRejects ? .badInput : .success
        }
    }

    /// The store line (text) or member (JSON), and the end of the JSON document.
    private func writeStore(_ state: StoreState?, rejected: Int, json: inout JSONWriter, output: OutputSink) {
        if format == .text {
            switch (state, storePath) {
            case (.held(let held)?, let path?):
                output.write("store \(path): accepts the model (\(held.map { "\($0.0): \($0.1) records held" }.joined(separator: ", ")))\n")
            case (.absent?, let path?):
                output.write("store \(path): does not exist yet; checked as empty (the first run creates it)\n")
            default: break
            }
            return
        }
        json.endArray()
        json.field("rejected", rejected)
        json.key("store")
        if let state, let path = storePath {
            json.beginObject()
            json.field("path", path)
            json.field("exists", { if case .absent = state { false } else { true } }())
            json.field("accepts_model", true)
            json.key("records")
            json.beginObject()
            if case .held(let held) = state { for (name, count) in held { json.field(name, count) } }
            json.endObject()
            json.endObject()
        } else {
            json.null()
        }
        json.endObject()
        output.write("\n")
    }

    /// What `check` found of the store: the records each entity holds, or that it does not exist yet.
    enum StoreState {
        case held([(String, Int)])
        case absent
    }

    /// Checks that the store at `path` accepts the model's entities that `inputs` write, exactly
    /// as `run` registers them (an incompatible model is `StoreError.incompatibleModel`), inside a
    /// write transaction that is always rolled back; returns the records each entity holds.
    static func checkModel(_ model: Model, inputs: [FeedInput], againstStoreAt path: String, options: StoreOptions) throws -> StoreState {
        var names: [String] = []
        for input in inputs where !names.contains(input.mapping.entity) { names.append(input.mapping.entity) }
        let entities = names.compactMap { model.entity(named: $0) }
        var storeOptions = options
        storeOptions.store = path
        let store: Store
        do {
            store = try storeOptions.open(create: false)
        } catch StoreError.notFound {
            return .absent
        }
        return .held(try store.inTransaction {
            try store.ensureEntities(entities)
            return .rollback(try entities.map { ($0.name, try store.records.recordCount(of: $0)) })
        })
    }
}
