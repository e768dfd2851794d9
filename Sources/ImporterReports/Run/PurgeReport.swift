import ImporterHistory
import ImporterSupport

/// `importer history purge`: what was purged, and the consumers it expired with how to recover them.
public struct PurgeReport: ListReport {
    public var result: PurgeResult

    public init(_ result: PurgeResult) {
        self.result = result
    }

    public func renderText(to output: OutputSink) {
        output.write("Purged \(result.transactions) transaction(s) and \(result.changes) change(s); history is kept after transaction \(result.purgedThrough).\n")
        if !result.expiredConsumers.isEmpty {
            output.write("Expired consumers: \(result.expiredConsumers.joined(separator: ", ")) (views: importer views rebuild NAME; others: importer consumers reset NAME)\n")
        }
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("purged_through", result.purgedThrough)
            json.field("transactions", result.transactions)
            json.field("changes", result.changes)
            json.field("expired_consumers", strings: result.expiredConsumers)
            json.endObject()
        }
    }
}
