import Foundation

/// Counts of what an import did to one entity (or to all, as totals).
public struct ChangeCounts: Sendable, Equatable, Codable {
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    public var unchanged = 0
    public var rejected = 0
    public var duplicates = 0
    /// Updates that moved a record's key within its drift tolerance (also counted in `updated`).
    public var rekeyed = 0

    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0, unchanged: Int = 0, rejected: Int = 0, duplicates: Int = 0, rekeyed: Int = 0) {
        self.rekeyed = rekeyed
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.unchanged = unchanged
        self.rejected = rejected
        self.duplicates = duplicates
    }

    public var changes: Int { inserted + updated + deleted }

    public static func + (lhs: ChangeCounts, rhs: ChangeCounts) -> ChangeCounts {
        ChangeCounts(inserted: lhs.inserted + rhs.inserted, updated: lhs.updated + rhs.updated, deleted: lhs.deleted + rhs.deleted,
                     unchanged: lhs.unchanged + rhs.unchanged, rejected: lhs.rejected + rhs.rejected, duplicates: lhs.duplicates + rhs.duplicates,
                     rekeyed: lhs.rekeyed + rhs.rekeyed)
    }
}

/// One store transaction that changed records (Core Data's `NSPersistentHistoryTransaction`).
public struct HistoryTransaction: Sendable, Equatable {
    public var number: Int64
    public var token: String
    /// UTC, ISO-8601 with milliseconds.
    public var timestamp: String
    public var author: String
    public var context: String
    public var processID: Int
    public var host: String
    /// The feeds the transaction imported (`-` is stdin).
    public var sources: [String]
    public var totals: ChangeCounts
    /// Per-entity counts, in entity name order.
    public var entities: [(String, ChangeCounts)]

    public init(number: Int64, token: String, timestamp: String, author: String, context: String, processID: Int,
                host: String, sources: [String], totals: ChangeCounts, entities: [(String, ChangeCounts)]) {
        self.number = number
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.context = context
        self.processID = processID
        self.host = host
        self.sources = sources
        self.totals = totals
        self.entities = entities
    }

    public static func == (lhs: HistoryTransaction, rhs: HistoryTransaction) -> Bool {
        lhs.number == rhs.number && lhs.token == rhs.token && lhs.timestamp == rhs.timestamp && lhs.author == rhs.author
            && lhs.context == rhs.context && lhs.processID == rhs.processID && lhs.host == rhs.host
            && lhs.sources == rhs.sources && lhs.totals == rhs.totals
            && lhs.entities.map(\.0) == rhs.entities.map(\.0) && lhs.entities.map(\.1) == rhs.entities.map(\.1)
    }
}
