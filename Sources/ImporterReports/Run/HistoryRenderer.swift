import Foundation
import ImporterStore
import ImporterSupport

/// Renders a range of history transactions with their changes (`importer history`, `report`).
///
/// JSON: `{"store_id": "...", "transactions": [{<transaction fields>, "totals", "entities",
/// "changes": [<change>...]}]}`, with the same change objects as the run report.
public struct HistoryRenderer {
    /// The store reported on (its id) and the snapshot of it the report reads (the caller's
    /// transaction).
    public var store: Store
    public var snapshot: StoreSnapshot
    /// Changes listed per transaction in text before "and N more".
    public var textChangeLimit = 20

    public init(store: Store, snapshot: StoreSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    /// The steps of the migrations among the store's transactions, by transaction number.
    private func migrations() throws -> [Int64: [String]] {
        let models = try snapshot.records.registeredModels()
        return Dictionary(models.compactMap { model in model.transaction.map { ($0, model.steps) } }) { first, _ in first }
    }

    public func renderJSON(_ content: ReportContent, to output: OutputSink) throws {
        let migrationSteps = try migrations()
        try JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("store_id", store.storeID.uuidString.lowercased())
            json.field("dry_run", content.dryRun)
            json.key("transactions")
            json.beginArray()
            try content.forEachTransaction(in: snapshot, begin: { transaction in
                json.beginObject()
                json.writeTransactionFields(transaction)
                json.key("totals")
                json.writeCounts(transaction.totals)
                json.key("entities")
                json.writeEntities(transaction.entities)
                if let steps = migrationSteps[transaction.number] { json.field("migration", strings: steps) }
                json.key("changes")
                json.beginArray()
            }, change: { change, _ in
                json.writeChange(change, parents: content.parents)
            }, end: { _ in
                json.endArray()
                json.endObject()
            })
            json.endArray()
            json.endObject()
        }
    }

    public func renderNDJSON(_ content: ReportContent, to output: OutputSink) throws {
        try content.forEachChange(in: snapshot) { change, transaction in
            JSONWriter.document(to: output) { $0.writeChange(change, transaction: transaction, parents: content.parents) }
        }
    }

    public func renderText(_ content: ReportContent, to output: OutputSink) throws {
        let migrationSteps = try migrations()
        if content.dryRun { output.write("Dry run — nothing was written. What it would have written:\n") }
        if content.transactions.isEmpty { output.write("No history transactions.\n") }
        var shown = 0
        var total = 0
        var grouped = GroupedChangeLines(parents: content.parents)
        try content.forEachTransaction(in: snapshot, begin: { transaction in
            output.write("Transaction \(transaction.number) (\(transaction.token.isEmpty ? "not written, no token" : "token \(transaction.token)")) by \(transaction.author) [\(transaction.context)] at \(transaction.timestamp) on \(transaction.host) pid \(transaction.processID)\n")
            if !transaction.sources.isEmpty { output.write("  sources: \(transaction.sources.joined(separator: ", "))\n") }
            for step in migrationSteps[transaction.number] ?? [] { output.write("  migration: \(step)\n") }
            for (name, counts) in transaction.entities { output.write("  \(name): \(TextFormatting.counts(counts))\n") }
            shown = 0
            total = 0
            grouped = GroupedChangeLines(parents: content.parents)
        }, change: { change, _ in
            total += 1
            guard shown < textChangeLimit else { return }
            grouped.add(change)
            shown += 1
        }, end: { _ in
            for line in grouped.lines(indent: "  ") { output.write(line + "\n") }
            if total > shown { output.write("    … and \(total - shown) more change\(total - shown == 1 ? "" : "s")\n") }
        })
    }
}
