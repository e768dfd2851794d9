import Foundation
import ImporterModel

/// What a store backend does, in the model's language: the seam between the stages above the
/// store (history, views, pipeline, reports, the CLI) and one database (SQLite or PostgreSQL).
/// No SQL crosses it, except the caller-written SQL of `importer query` (`ReadOnlyQuerying`).
/// It is the sum of small role protocols, one concern each, each split into its reading part and
/// its writing part (as GRDB splits reader and writer): a read transaction's handle
/// (`StoreSnapshot`) exposes only the readers, a write transaction's (`StoreWriteTransaction`) both.
///
/// Invariants every backend keeps:
/// - `write` takes the store's single writer lock up front and holds it until commit or rollback
///   (`StoreError.locked` after the wait); `read` sees one consistent snapshot and never waits for
///   a writer.
/// - Methods of the writing parts are called inside `write`; the readers inside `read` or `write`.
/// - History is ordered by transaction number; a change belongs to exactly one transaction; a
///   consumer's token is the number of the last transaction it consumed.
/// - Errors are `StoreError`s that name the store, never raw database errors. One throws style:
///   a requirement throws `StoreError` (typed), except where it runs a caller's closure
///   (`forEachChange`, `forEachRecord`: the closure's own errors pass through untyped) or checks a
///   model and opens an import or undo over it (`ensureEntities`, `beginImport`, `beginUndo` may
///   also throw `ModelError`).
///
/// The protocol is synchronous: a stage runs one command against one store on one thread, and
/// SQLite's C API is synchronous. An asynchronous client (postgres-nio) implements it by running
/// its event loop on its own threads and blocking the caller's thread until each call's answer;
/// see Docs/ARCHITECTURE.md and Docs/DECISIONS.md.
public protocol StoreBackend: StoreIdentity, StoreTransactions, HistoryWriting, RecordWriting, ViewWriting, ConsumerWriting,
                              RejectAndStatusWriting, SourceStateWriting, ReadOnlyQuerying, ConsumerLocking {}

/// Which store this is: where, how opened, its id and tokens, and the entities it holds.
public protocol StoreIdentity: AnyObject {
    var path: String { get }
    var options: Store.Options { get }
    var storeID: UUID { get }
    /// The directory holding the store's files, where files that must live on the store's disk are
    /// kept (downloaded feed bodies); nil for a store on a server.
    var directory: String? { get }
    /// The entities the store holds, as registered.
    var entities: [EntityDescription] { get }
    func entity(named name: String) -> EntityDescription?
    func token(_ number: Int64) -> Token
    /// Parses a token and checks that it belongs to this store.
    func parseToken(_ text: String) throws(StoreError) -> Token
}

/// Transactions on the store, and what crosses them: interrupts, errors, other processes' commits.
public protocol StoreTransactions: AnyObject {
    /// Runs `body` in a write transaction that ends as it says (see `Store.inTransaction`).
    func write<T>(_ body: () throws -> TransactionCompletion<T>) throws -> T
    func read<T>(_ body: () throws -> T) throws -> T
    /// Makes the work running on the store fail (from any thread), so its transaction rolls back.
    func interrupt()
    func reloadEntities() throws(StoreError)
    /// The store error for an error met while using the store (a database error named, a
    /// `StoreError` as it is).
    func storeError(from error: any Error) -> StoreError
    /// A value that changes whenever another process commits to the store (watch polls it).
    func commitMarker() throws(StoreError) -> Int64
}

/// Reading the store's history: transactions and their changes.
public protocol HistoryReading: AnyObject {
    /// The number of the last committed history transaction (0 when there is none).
    func lastTransactionNumber() throws(StoreError) -> Int64
    /// History of the transactions up to this number was purged (0: none was).
    func purgedThrough() throws(StoreError) -> Int64
    /// Transactions with `after < number <= through`, oldest first, at most `limit`.
    func transactions(after: Int64, through: Int64, limit: Int?) throws(StoreError) -> [HistoryTransaction]
    /// The last kept transaction with a timestamp before `timestamp`, or nil.
    func lastTransaction(before timestamp: String) throws(StoreError) -> Int64?
    /// Each change of the transactions `after < number <= through` that `filter` selects, in
    /// history order, stopping after `limit` changes; streamed (bounded memory).
    func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws
    /// The transactions after `number` that changed any of `recordIDs` of `entity`, oldest first.
    func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws(StoreError) -> [Int64]
}

/// The store's history: reading it, and purging it (inside a write transaction).
public protocol HistoryWriting: HistoryReading {
    /// Deletes the history of the transactions up to `through` and records the purged boundary.
    func purgeHistory(through: Int64) throws(StoreError) -> (transactions: Int, changes: Int)
}

/// Reading the entities' records.
public protocol RecordReading: AnyObject {
    /// Each record of `entity` with its id and its values (in attribute order), in key order;
    /// streamed.
    func forEachRecord(of entity: EntityDescription, _ body: (Int64, [Value]) throws -> Void) throws
    /// How many records of `entity` the store holds.
    func recordCount(of entity: EntityDescription) throws(StoreError) -> Int
    /// The largest (or smallest) value of `attribute` among `entity`'s records, in the attribute
    /// type's order; null when no record holds one (or the entity has no table yet).
    func extreme(_ which: Extreme, of attribute: AttributeDescription, in entity: EntityDescription) throws(StoreError) -> Value
    /// The relationships between the store's entities, as the runs that wrote them declared them.
    func registeredRelationships() throws(StoreError) -> [Relationship]
    /// The versions of the model the store was written with, oldest first.
    func registeredModels() throws(StoreError) -> [StoredModel]
    /// The names of the entities a migration removed (`removed-entities:`), whose history stays.
    func removedEntityNames() throws(StoreError) -> [String]
}


/// The records: reading them, and the entities' tables, imports and undos writing them (inside a
/// write transaction).
public protocol RecordWriting: RecordReading {
    /// Creates or migrates the entities' tables.
    func ensureEntities(_ entities: [EntityDescription]) throws
    /// Records `relationships` (each replacing the one registered for its child entity).
    func registerRelationships(_ relationships: [Relationship]) throws
    /// The fields runs of feed mapping `mapping` met that it does not read (`unmapped:`).
    func knownUnmappedFields(of mapping: String) throws -> [String]
    /// Records `fields` as the fields met that `mapping` does not read (writes only a change).
    func recordUnmappedFields(_ fields: [String], of mapping: String) throws
    /// Records `model` as the store's newest version unless it is that already (same digest, no
    /// migration); returns whether it wrote one.
    func registerModel(_ model: StoredModel) throws -> Bool
    /// Applies `steps` (each one `importer migrate` can do) so the store holds `entities`, and
    /// records the migration as history transaction `metadata` (no record changes); returns its
    /// number.
    func migrate(_ steps: [MigrationStep], to entities: [EntityDescription], metadata: TransactionMetadata) throws -> Int64
    /// Opens an import of `entities` (after `ensureEntities`).
    func beginImport(_ entities: [EntityDescription]) throws -> any ImportTransaction
    /// Opens the inverse of a transaction over `entities`.
    func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction
}

/// Reading derived views' tables, and what replaying them needs to know of history.
public protocol ViewReading: AnyObject {
    func registeredViews() throws(StoreError) -> [ViewDefinition]
    /// The view's rows by group values: its storage columns after the groups.
    func viewRows(_ view: ViewDefinition) throws(StoreError) -> [[Value]: [Value]]
    /// The rows a full recomputation of the view gives, keyed the same way.
    func recomputedViewRows(_ view: ViewDefinition) throws(StoreError) -> [[Value]: [Value]]
    /// The view's group and aggregate columns, rows ordered by group.
    func orderedViewRows(_ view: ViewDefinition) throws(StoreError) -> (columns: [String], rows: [[Value]])
    /// The ids of an entity's changes in the transactions `after < number <= through` (opaque,
    /// ordered; each transaction's are contiguous), or nil when there are none.
    func changeRange(of entity: String, after: Int64, through: Int64) throws(StoreError) -> ClosedRange<Int64>?
    /// A cheap upper bound of `recordCount(of:)`.
    func recordCountUpperBound(of entity: EntityDescription) throws(StoreError) -> Int64
}

/// Derived views' tables: reading them, and registering, applying history to and rebuilding them
/// (inside a write transaction).
public protocol ViewWriting: ViewReading {
    /// Creates the view's (empty) table and registers its definition; `replacing` an earlier
    /// definition of the same name, else refusing a table of that name.
    func installView(_ view: ViewDefinition, replacing: Bool) throws(StoreError)
    /// Applies the changes with ids in `changes` to the groups of `views` (all of one entity),
    /// counting the groups inserted, updated, deleted and recomputed into `effects` (one per view,
    /// in order).
    func applyViewChanges(_ views: [ViewDefinition], changes: ClosedRange<Int64>, into effects: inout [ViewEffect]) throws(StoreError)
    /// Recomputes the views' rows from their entity tables.
    func rebuildViews(_ views: [ViewDefinition]) throws(StoreError)
}

/// Reading the rejected records kept with their runs, and the store's counts.
public protocol RejectAndStatusReading: AnyObject {
    /// The runs that kept rejects, oldest first.
    func rejectRuns() throws(StoreError) -> [RejectRunSummary]
    /// The rejects of a run (the latest when nil), in the order they were met.
    func rejects(run: Int64?) throws(StoreError) -> (run: Int64?, rejects: [Reject])
    /// What the store holds, counted.
    func statusCounts() throws(StoreError) -> StoreCounts
}

/// Rejected records: reading them, and clearing them (inside a write transaction).
public protocol RejectAndStatusWriting: RejectAndStatusReading {
    /// Deletes the rejects of one run, or all; returns how many.
    func clearRejects(run: Int64?) throws(StoreError) -> Int
}

/// Reading the named consumers of history and their tokens.
public protocol ConsumerReading: AnyObject {
    func consumers() throws(StoreError) -> [Consumer]
    func consumer(named name: String) throws(StoreError) -> Consumer?
}

/// Named consumers of history: reading them, and adding, removing and moving their tokens (inside
/// a write transaction).
public protocol ConsumerWriting: ConsumerReading {
    /// Adds a consumer; false when one of that name exists.
    func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool
    /// Removes a consumer; false when there is none of that name.
    func deleteConsumer(named name: String) throws(StoreError) -> Bool
    /// Sets a consumer's token (and its last replay time, when given); false when it does not exist.
    func setConsumerToken(_ name: String, to number: Int64, replayedAt: String?) throws(StoreError) -> Bool
    /// Moves a consumer's token from `from` to `to` unless another reader moved it meanwhile
    /// (compare-and-set); false when it did not move.
    func advanceConsumerToken(_ name: String, from: Int64, to: Int64, at timestamp: String) throws(StoreError) -> Bool
}

/// Reading what the store keeps of the feeds fetched from URLs.
public protocol SourceStateReading: AnyObject {
    /// Every source's state, by URL (none in a store of an older schema opened read-only).
    func sourceStates() throws(StoreError) -> [SourceState]
    func sourceState(url: String) throws(StoreError) -> SourceState?
}

/// The feeds fetched from URLs: reading their state, and recording it (inside the write
/// transaction that imported the data).
public protocol SourceStateWriting: SourceStateReading {
    /// Records `state` for its URL, replacing what was kept.
    func recordSourceState(_ state: SourceState) throws(StoreError)
}

extension StoreIdentity {
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    public func token(_ number: Int64) -> Token {
        Token(storeID: storeID, transactionNumber: number)
    }

    public func parseToken(_ text: String) throws(StoreError) -> Token {
        try Token(parsing: text, of: storeID)
    }
}
