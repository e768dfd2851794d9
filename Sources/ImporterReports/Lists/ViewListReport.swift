import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// `importer views list`: each view with its definition, its token's transaction and lag.
public struct ViewListReport: ListReport {
    public var views: [(view: ViewDefinition, consumer: Consumer)]
    /// The store's newest transaction.
    public var head: Int64
    /// History is purged through this transaction.
    public var purgedThrough: Int64

    public init(views: [(view: ViewDefinition, consumer: Consumer)], head: Int64, purgedThrough: Int64) {
        self.views = views
        self.head = head
        self.purgedThrough = purgedThrough
    }

    /// The views `snapshot` sees; a view without its consumer is `HistoryError.unknownConsumer`.
    public init(in snapshot: StoreSnapshot) throws {
        let consumers = Dictionary(try snapshot.allConsumers().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let views = try snapshot.allViews().map { view in
            guard let consumer = consumers[view.name] else { throw HistoryError.unknownConsumer(view.name) }
            return (view, consumer)
        }
        self.init(views: views, head: try snapshot.history.lastTransactionNumber(), purgedThrough: try snapshot.history.purgedThrough())
    }

    public func renderText(to output: OutputSink) {
        if views.isEmpty { output.write("No views.\n") }
        for (view, consumer) in views {
            let aggregates = view.aggregates.map { "\($0.name) = \($0.function.rawValue)(\($0.attribute ?? "*"))" }
            output.write("\(view.name): \(view.entity) grouped by \(view.groupBy.joined(separator: ", ")); \(aggregates.joined(separator: ", "))\n")
            output.write("  token at transaction \(consumer.tokenNumber) of \(head)\(consumer.isExpired(purgedThrough: purgedThrough) ? ", EXPIRED" : ""), last replay \(consumer.lastReplayAt ?? "never")\n")
        }
    }

    public func renderJSON(to output: OutputSink) {
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
                json.field("expired", consumer.isExpired(purgedThrough: purgedThrough))
                json.endObject()
            }
            json.endArray()
        }
    }
}
