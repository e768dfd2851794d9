import ImporterHistory
import ImporterReports
import ImporterStore
import ImporterSupport
import ImporterViews

/// Notices history written by other processes (Core Data's remote change notification) and passes
/// it on: derived views are replayed, and the new changes of the watched external consumers are
/// written as NDJSON (one line per change, with the consumer's name), each consumer's token
/// advancing once its lines are written.
///
/// New commits are detected with `PRAGMA data_version`, which changes when another connection
/// commits; the caller decides how long to wait between checks (no busy loop).
public final class HistoryWatcher {
    public let store: Store
    public let consumers: [String]
    private let output: OutputSink
    private var dataVersion: Int64?

    /// `consumers`: external consumers whose changes are printed (views are always replayed).
    public init(store: Store, consumers: [String], output: OutputSink) {
        self.store = store
        self.consumers = consumers
        self.output = output
    }

    /// True when another process committed since the last check (or on the first check).
    public func hasNewCommits() throws -> Bool {
        let version = try store.commitMarker()
        defer { dataVersion = version }
        return dataVersion != version
    }

    /// What one pass did.
    public struct Pass: Sendable {
        public var views: [ViewEffect] = []
        public var printed: [String: Int] = [:]
    }

    /// Replays the views and prints the consumers' new changes.
    public func pass() throws -> Pass {
        var result = Pass()
        try store.reloadEntities()
        result.views = try store.write { (tx: StoreWriteTransaction) throws -> [ViewEffect] in
            let maintainer = ViewMaintainer(entities: store.entities)
            return try maintainer.replay(try tx.snapshot.allViews(), in: tx)
        }
        for name in consumers {
            let consumer = try store.read { (snapshot: StoreSnapshot) throws -> Consumer in try snapshot.consumer(named: name) }
            guard consumer.kind == .external else { continue }
            try store.read { (snapshot: StoreSnapshot) throws in try snapshot.checkNotExpired(consumer) }
            var count = 0
            let head = try store.read { (snapshot: StoreSnapshot) throws -> Int64 in
                let head = try snapshot.history.lastTransactionNumber()
                let transactions = try snapshot.transactions(after: consumer.tokenNumber, through: head)
                    .filter { consumer.filter.includes(author: $0.author) }
                let parents = ChildParents(try snapshot.records.registeredRelationships())
                try snapshot.forEachChange(in: transactions, filter: consumer.filter) { change, transaction in
                    JSONWriter.document(to: output) { $0.writeChange(change, transaction: transaction, consumer: name, parents: parents) }
                    count += 1
                }
                return head
            }
            // At least once: the token moves only after the lines are written.
            try output.flush()
            if head > consumer.tokenNumber {
                try store.write { (tx: StoreWriteTransaction) throws in
                    try tx.advanceConsumerToken(name, from: consumer.tokenNumber, to: head)
                }
            }
            result.printed[name] = count
        }
        return result
    }
}
