/// What an import did, read back from the history tables (not from the run's memory), so a report
/// for a past transaction is the same as the one printed at the time.
public struct RunReport {
    /// The transaction the run wrote, or nil when nothing changed.
    public var transaction: HistoryTransaction?
    public var totals: ChangeCounts
    public var entities: [(String, ChangeCounts)]
    public var rejects: [Reject]
    public var warnings: [String]
    /// What the run did to each derived view.
    public var views: [ViewEffect]
    public var storePath: String

    /// The report of a finished import.
    public init(result: ImportResult, store: Store) throws(StoreError) {
        let history = HistoryReader(store: store)
        transaction = try result.transactionNumber.flatMap { number throws(StoreError) in try history.transaction(number) }
        if let transaction {
            totals = transaction.totals
            entities = transaction.entities
        } else {
            totals = result.totals
            entities = result.entities
        }
        rejects = result.rejects
        warnings = result.warnings
        views = result.views
        storePath = store.path
    }

    /// Streams the report's changes (none when nothing changed).
    public func forEachChange(in store: Store, limit: Int? = nil, _ body: (Change) throws -> Void) throws {
        guard let number = transaction?.number else { return }
        var remaining = limit ?? .max
        struct Stop: Error {}
        do {
            try HistoryReader(store: store).forEachChange(after: number - 1, through: number) { change in
                guard remaining > 0 else { throw Stop() }
                remaining -= 1
                try body(change)
            }
        } catch is Stop {}
    }
}
