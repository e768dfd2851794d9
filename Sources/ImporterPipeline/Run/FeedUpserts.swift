import ImporterModel
import ImporterStore
import Logging

/// The upserts of one feed's batches, in the way the store prefers them: straight, or, for a
/// backend that prefers key order (SQLite), through `KeyOrderedBatches`, with the store's
/// unchanged filter before sorting and its matcher while merging. Times its work as `upsert` and
/// `sort` in `phases`.
final class FeedUpserts {
    let entity: EntityDescription
    /// The feed's name in locations and messages.
    let source: String
    let transaction: any ImportTransaction
    private let ordered: KeyOrderedBatches?
    private let filtersUnchanged: Bool
    private let logger: Logger
    /// The error a failed write is reported as (a constraint the store holds, named).
    private let refused: (any Error, String) -> any Error
    private let checkCancellation: () throws -> Void
    private(set) var phases = PhaseTimes()
    /// Made when the first batch is held, let go of once the feed is read (it may hold megabytes).
    private var unchanged: (filter: (any UnchangedRecordFilter)?, made: Bool) = (nil, false)

    init(entity: EntityDescription, source: String, transaction: any ImportTransaction, options: ImportOptions, directory: String,
         logger: Logger, refused: @escaping (any Error, String) -> any Error, checkCancellation: @escaping () throws -> Void) {
        self.entity = entity
        self.source = source
        self.transaction = transaction
        ordered = transaction.prefersKeyOrder ? KeyOrderedBatches(directory: directory, runBytes: options.sortRunBytes, batchSize: options.batchSize) : nil
        filtersUnchanged = options.filtersUnchangedBeforeSorting
        self.logger = logger
        self.refused = refused
        self.checkCancellation = checkCancellation
    }

    /// Upserts `batch`, or holds it for the key order.
    func add(_ batch: RecordBatch) throws {
        if let ordered { try ordered.add(batch, dropUnchanged: dropUnchanged, upsert: upsert) } else { try upsert(batch) }
    }

    /// Upserts what the key order held back: the feed is then written whole.
    func finish() throws {
        // The records a filter kept are mostly changed: noting the unchanged ones would cost a
        // scan of the table for few.
        let filtered = unchanged.filter != nil
        unchanged.filter = nil
        guard let ordered else { return }
        try ordered.finish(matcher: { columns in
            guard !filtered else { return nil }
            let clock = ContinuousClock()
            let began = clock.now
            // Not timed through `phases.time`: the matcher goes to the merger's thread, and must
            // not pass through a closure that the compiler cannot see let go of it.
            let matcher = try transaction.unchangedRowMatcher(for: entity, columns: columns)
            phases.add("upsert", PhaseTimes.seconds(began.duration(to: clock.now)))
            let noting = matcher != nil
            logger.debug("merging sorted runs", metadata: ["source": "\(source)", "unchanged noted while merging": "\(noting)"])
            return matcher
        }, upsert: upsert)
        if ordered.sortingSeconds > 0 { phases.add("sort", ordered.sortingSeconds) }
    }

    private func upsert(_ batch: RecordBatch) throws {
        do {
            try phases.time("upsert") { try Self.upsert(batch, of: entity, into: transaction, from: source) }
        } catch {
            throw refused(error, "a record of \(source)")
        }
        try checkCancellation()
    }

    /// `batch` without the records the store holds with exactly their values (when the store can
    /// tell cheaply), before they are sorted.
    private func dropUnchanged(_ batch: RecordBatch) throws -> RecordBatch {
        try phases.time("upsert") {
            if !unchanged.made {
                unchanged = (filtersUnchanged ? try transaction.unchangedRecordFilter(for: entity, columns: batch.columns) : nil, true)
            }
            return unchanged.filter?.dropping(batch) ?? batch
        }
    }

    /// Upserts `batch`; a record the store cannot hold is located in `source`.
    static func upsert(_ batch: RecordBatch, of entity: EntityDescription, into transaction: any ImportTransaction, from source: String) throws {
        do {
            try transaction.upsert(batch, of: entity, columns: batch.columns)
        } catch StoreError.unstorable(var location, let reason) {
            location.source = source
            throw StoreError.unstorable(at: location, reason: reason)
        } catch StoreError.refused(var location?, let what, let reason) {
            location.source = source
            throw StoreError.refused(at: location, what: what, reason: reason)
        }
    }
}
