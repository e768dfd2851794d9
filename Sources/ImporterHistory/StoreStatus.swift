import Foundation
import ImporterStore

/// A store at a glance (`importer status`): its file, schema, contents, history, consumers, views
/// and purged range.
public struct StoreStatus: Sendable {
    public struct EntityStatus: Sendable {
        public var name: String
        public var table: String
        public var records: Int
    }

    public struct HistoryStatus: Sendable {
        public var transactions: Int
        public var changes: Int
        public var oldest: HistoryTransaction?
        public var newest: HistoryTransaction?
        /// History of transactions up to this number was purged (0: none).
        public var purgedThrough: Int64
        public var purgedAt: String?
    }

    public var path: String
    /// The store's size on disk, and its write-ahead log's (SQLite only; see `StoreCounts`).
    public var bytes: Int
    public var walBytes: Int?
    public var schemaVersion: Int
    public var storeID: String
    public var createdAt: String?
    public var entities: [EntityStatus]
    public var history: HistoryStatus
    public var consumers: [ConsumerStatus]
    public var rejectRuns: Int
    public var rejects: Int
    /// What the store keeps of each feed fetched from a URL.
    public var sources: [SourceState]

    /// Reads the status inside one read transaction (a consistent snapshot).
    public init(store: Store) throws {
        path = store.path
        (bytes, walBytes, schemaVersion, storeID, createdAt, entities, history, consumers, rejectRuns, rejects, sources) = try store.read { snapshot in
            try store.reloadEntities()
            let counts = try snapshot.rejects.statusCounts()
            let entities = zip(store.entities, counts.records).map { EntityStatus(name: $0.name, table: $0.tableName, records: $1) }
            let history = HistoryStatus(
                transactions: counts.transactions, changes: counts.changes,
                oldest: counts.oldestTransaction > 0 ? try snapshot.transaction(counts.oldestTransaction) : nil,
                newest: counts.newestTransaction > 0 ? try snapshot.transaction(counts.newestTransaction) : nil,
                purgedThrough: try snapshot.history.purgedThrough(), purgedAt: counts.purgedAt)
            let consumers = try snapshot.consumerStatuses(storeID: store.storeID)
            return (counts.bytes, counts.walBytes, counts.schemaVersion, store.storeID.uuidString.lowercased(), counts.createdAt, entities, history, consumers,
                    counts.rejectRuns, counts.rejects, try snapshot.sources.sourceStates())
        }
    }
}
