/// Renders history transactions with their changes (`importer history`).
///
/// JSON: `{"store_id": "...", "transactions": [{<transaction fields>, "totals", "entities",
/// "changes": [<change>...]}]}`, with the same change objects as the run report.
public struct HistoryRenderer {
    public var store: Store
    /// Changes listed per transaction in text before "and N more".
    public var textChangeLimit = 20

    public init(store: Store) {
        self.store = store
    }

    public func render(after: Int64, through: Int64 = .max, filter: ChangeFilter = .all, as format: ReportFormat, to output: OutputSink) throws {
        let reader = HistoryReader(store: store)
        let transactions = try reader.transactions(after: after, through: through).filter { filter.includes(author: $0.author) }
        switch format {
        case .markdown, .csv, .html:
            try ReportWriter(store: store).write(ReportContent(store: store, after: after, through: through, filter: filter), as: format, to: output)
        case .json:
            var json = JSONWriter(output: output)
            json.beginObject()
            json.field("store_id", store.storeID.uuidString.lowercased())
            json.key("transactions")
            json.beginArray()
            for transaction in transactions {
                json.beginObject()
                json.writeTransactionFields(transaction)
                json.key("totals")
                json.writeCounts(transaction.totals)
                json.key("entities")
                json.writeEntities(transaction.entities)
                json.key("changes")
                json.beginArray()
                try reader.forEachChange(after: transaction.number - 1, through: transaction.number, filter: filter) { json.writeChange($0) }
                json.endArray()
                json.endObject()
            }
            json.endArray()
            json.endObject()
            output.write("\n")
        case .ndjson:
            for transaction in transactions {
                try reader.forEachChange(after: transaction.number - 1, through: transaction.number, filter: filter) { change in
                    var line = JSONWriter(output: output)
                    line.writeChange(change, transaction: transaction)
                    output.write("\n")
                }
            }
        case .text:
            if transactions.isEmpty { output.write("No history transactions.\n") }
            for transaction in transactions {
                output.write("Transaction \(transaction.number) (token \(transaction.token)) by \(transaction.author) [\(transaction.context)] at \(transaction.timestamp) on \(transaction.host) pid \(transaction.processID)\n")
                if !transaction.sources.isEmpty { output.write("  sources: \(transaction.sources.joined(separator: ", "))\n") }
                for (name, counts) in transaction.entities { output.write("  \(name): \(TextFormatting.counts(counts))\n") }
                var shown = 0
                var total = 0
                try reader.forEachChange(after: transaction.number - 1, through: transaction.number, filter: filter) { change in
                    total += 1
                    guard shown < textChangeLimit else { return }
                    output.write("  " + TextFormatting.changeLine(change) + "\n")
                    shown += 1
                }
                if total > shown { output.write("    … and \(total - shown) more change\(total - shown == 1 ? "" : "s")\n") }
            }
        }
    }
}
