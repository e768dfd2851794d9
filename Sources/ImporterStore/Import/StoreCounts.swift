import Foundation

/// What a store holds, counted (for `importer status`).
public struct StoreCounts: Sendable, Equatable {
    public var schemaVersion = 0
    public var createdAt: String?
    /// Records per entity, in the order of the store's entities.
    public var records: [Int] = []
    /// Change rows kept in history, over all entities.
    public var changes = 0
    public var transactions = 0
    /// The oldest and newest kept transaction numbers (0 when none is kept).
    public var oldestTransaction: Int64 = 0
    public var newestTransaction: Int64 = 0
    public var purgedAt: String?
    public var rejectRuns = 0
    public var rejects = 0
    /// The store's size on disk (SQLite: the database file; PostgreSQL: the tables and indexes of
    /// its schema), and its write-ahead log's when the store has one of its own (SQLite).
    public var bytes = 0
    public var walBytes: Int?

    public init() {}
}

/// A run's rejects, summarized.
public struct RejectRunSummary: Sendable, Equatable {
    public var run: Int64
    public var transactionNumber: Int64?
    public var createdAt: String
    public var count: Int
    public var sources: [String]

    public init(run: Int64, transactionNumber: Int64?, createdAt: String, count: Int, sources: [String]) {
        self.run = run
        self.transactionNumber = transactionNumber
        self.createdAt = createdAt
        self.count = count
        self.sources = sources
    }
}
