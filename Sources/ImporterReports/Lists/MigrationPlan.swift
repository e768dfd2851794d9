import ImporterModel
import ImporterStore
import ImporterSupport

/// What `importer migrate` (and `--plan`) prints: each step, the records it rewrites, what it does
/// to history, or why it cannot be done; then the migration's transaction once applied.
public struct MigrationPlan {
    public struct Line: Sendable {
        public var step: String
        /// Stored records the step rewrites (0 for a change of the tables alone).
        public var records: Int
        public var effect: String
        public var refusal: String?
    }

    public var lines: [Line]
    /// The migration's transaction number and token, once applied.
    public var transaction: (number: Int64, token: String)?
    public var dryRun = false

    /// The plan of `steps` over the store `snapshot` reads, whose entities are `entities`.
    public init(steps: [MigrationStep], in snapshot: StoreSnapshot, entities: [EntityDescription]) throws {
        lines = try steps.map { step in
            let stored = entities.first { $0.name == step.entity }
            let count = try stored.map { try snapshot.records.recordCount(of: $0) } ?? 0
            return Line(step: step.description, records: Self.rewrites(step) ? count : 0, effect: Self.effect(step, records: count), refusal: step.refusal)
        }
    }

    private static func rewrites(_ step: MigrationStep) -> Bool {
        if case .addAttribute(_, _, let fill?) = step { return fill != .value(.null) }
        if case .retypeAttribute = step { return true }
        if case .takeParentKey = step { return true }
        return false
    }

    private static func effect(_ step: MigrationStep, records: Int) -> String {
        switch step {
        case .addEntity: "its tables are created"
        case .addAttribute(_, _, let fill?): "\(records) stored record(s) take \(fill), and deleted ones' images in history; the migration's transaction records the step, not each record"
        case .addAttribute: "stored records hold null; no record rewritten"
        case .renameAttribute: "no record rewritten; past changes, views and consumer filters read the new name"
        case .changeDefinition: "the definition is registered; no record rewritten"
        case .rebuildView: "its definition changed, or it reads values the migration fills: its rows are recomputed from the stored records"
        case .addIndex: "the index is built over the \(records) stored record(s); no record rewritten"
        case .dropIndex: "the index is dropped; no record rewritten"
        case .removeAttribute: "its column goes from the \(records) record(s); its past values stay in history"
        case .removeEntity: "its table and \(records) record(s) go; its past changes stay in history (undo of one is refused)"
        case .retypeAttribute(_, _, _, _, let invalid):
            "the values of \(records) stored record(s) and their past values in history are converted"
                + (invalid == .refuse ? "; a value that does not convert refuses the migration, naming its record" : "")
        case .changeOptionality(_, _, true, _?): "the stored records holding null take the default, and deleted ones' images in history; the migration's transaction records the step, not each record"
        case .takeParentKey: "\(records) stored record(s) and their past changes take their parent's values, found by its old key; one holding another value refuses the migration, naming it"
        case .changeOptionality(_, _, true, nil): "a stored record holding null refuses the migration, naming it; no value rewritten"
        case .changeOptionality: "no value rewritten"
        case .changeKey: "records keep their ids and history; a key value stored records share refuses the migration, naming them"
        case .renameEntity: "no record rewritten; past transactions, views, consumer filters, relationships and rejects read the new name"
        case .changeTable: "the tables are renamed, their indexes with them; no record rewritten"
        }
    }

    public func write(as format: ListFormat, to output: OutputSink) {
        guard format == .json else { return writeText(to: output) }
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("dry_run", dryRun)
            json.key("steps")
            json.beginArray()
            for line in lines {
                json.beginObject()
                json.field("step", line.step)
                json.field("records", line.records)
                json.field("effect", line.effect)
                json.field("refused", line.refusal.map(Value.text) ?? .null)
                json.endObject()
            }
            json.endArray()
            json.key("transaction")
            if let transaction { json.writePairs([("number", .integer(transaction.number)), ("token", .text(transaction.token))]) } else { json.null() }
            json.endObject()
        }
    }

    private func writeText(to output: OutputSink) {
        guard !lines.isEmpty else { return output.write("The store holds this model: no migration to do.\n") }
        for line in lines {
            output.write("  \(line.step): " + (line.refusal.map { "CANNOT: \($0)" } ?? line.effect) + "\n")
        }
        if let transaction {
            output.write((dryRun ? "Dry run — rolled back; it would have been transaction \(transaction.number)" : "Migrated: transaction \(transaction.number) (token \(transaction.token))") + ", context migration\n")
        } else if lines.contains(where: { $0.refusal != nil }) {
            output.write("The migration cannot be done as planned: nothing was changed.\n")
        }
    }
}
