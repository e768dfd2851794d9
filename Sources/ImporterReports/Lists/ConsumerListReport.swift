import ImporterHistory
import ImporterSupport

/// `importer consumers list`: every consumer (views included) with its token, lag, last replay and filters.
public struct ConsumerListReport: ListReport {
    public var consumers: [ConsumerStatus]
    /// History is purged through this transaction (an expired consumer's line names it).
    public var purgedThrough: Int64

    public init(_ consumers: [ConsumerStatus], purgedThrough: Int64) {
        self.consumers = consumers
        self.purgedThrough = purgedThrough
    }

    public func renderText(to output: OutputSink) {
        if consumers.isEmpty { output.write("No consumers.\n") }
        for status in consumers { output.write(TextFormatting.consumerLine(status, purgedThrough: purgedThrough) + "\n") }
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginArray()
            for status in consumers { json.writeConsumer(status) }
            json.endArray()
        }
    }
}
