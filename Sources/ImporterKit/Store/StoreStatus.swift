import Foundation

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
    /// The database file's size, and the write-ahead log's.
    public var bytes: Int
    public var walBytes: Int
    public var schemaVersion: Int
    public var storeID: String
    public var createdAt: String?
    public var entities: [EntityStatus]
    public var history: HistoryStatus
    public var consumers: [ConsumerStatus]
    public var rejectRuns: Int
    public var rejects: Int

    /// Reads the status inside one read transaction (a consistent snapshot).
    public init(store: Store) throws {
        path = store.path
        func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0 }
        bytes = size(store.path)
        walBytes = size(store.path + "-wal")
        let connection = store.connection
        (schemaVersion, storeID, createdAt, entities, history, consumers, rejectRuns, rejects) = try store.read {
            try store.reloadEntities()
            let entities = try store.entities.map { entity in
                EntityStatus(name: entity.name, table: entity.tableName, records: Int(try connection.integer("SELECT count(*) FROM \(SQLIdentifier.quoted(entity.tableName))")))
            }
            var changes = 0
            for entity in store.entities {
                changes += Int(try connection.integer("SELECT count(*) FROM \(EntitySchema(entity: entity).changeTable)"))
            }
            let reader = HistoryReader(store: store)
            let first = try connection.integer("SELECT coalesce(min(number), 0) FROM importer_transaction")
            let last = try connection.integer("SELECT coalesce(max(number), 0) FROM importer_transaction")
            let history = HistoryStatus(
                transactions: Int(try connection.integer("SELECT count(*) FROM importer_transaction")), changes: changes,
                oldest: first > 0 ? try reader.transaction(first) : nil, newest: last > 0 ? try reader.transaction(last) : nil,
                purgedThrough: try store.purgedThrough(),
                purgedAt: try store.metadata("purged_at")?.stringValue)
            let consumers = try ConsumerRegistry(store: store).statuses()
            return (Int(try connection.integer("PRAGMA user_version")), store.storeID.uuidString.lowercased(),
                    try store.metadata("created_at")?.stringValue,
                    entities, history, consumers,
                    Int(try connection.integer("SELECT count(DISTINCT run) FROM importer_reject")), Int(try connection.integer("SELECT count(*) FROM importer_reject")))
        }
    }
}
