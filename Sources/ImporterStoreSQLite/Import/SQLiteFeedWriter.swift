import ImporterKeyOrder
import ImporterModel
import ImporterStore
import ImporterSupport

/// A feed's writer on SQLite, whose unique index is written record by record, so that key order
/// makes each batch's stored rows one index range and inserts appends: the feed's batches in key
/// order (`KeyOrderedBatches`, sorting a shuffled feed through temporary files), the records the
/// store holds unchanged dropped before a sort (`UnchangedFilter`) or noted while merging
/// (`StoredRowMatcher`), each batch then upserted by the transaction's `BatchUpserter`.
///
/// Ownership: made and used on the import's thread; the filter is let go of once the feed is read
/// (it may hold megabytes); the matcher is sent to the merger's thread.
final class SQLiteFeedWriter: FeedWriter {
    private let transaction: SQLiteImportTransaction
    private let writing: FeedWriteOptions
    private let ordered: KeyOrderedBatches
    /// Made when the first batch is held, let go of at `finish`.
    private var unchanged: (filter: UnchangedFilter?, made: Bool) = (nil, false)
    private var phases = PhaseTimes()

    init(transaction: SQLiteImportTransaction, writing: FeedWriteOptions) {
        self.transaction = transaction
        self.writing = writing
        ordered = KeyOrderedBatches(directory: writing.temporaryDirectory, runBytes: writing.sortRunBytes, batchSize: writing.batchSize)
    }

    func add(_ batch: RecordBatch) throws {
        try ordered.add(batch, dropUnchanged: dropUnchanged, upsert: upsert)
    }

    func finish() throws -> FeedOutcome {
        // The records a filter kept are mostly changed: noting the unchanged ones would cost a
        // scan of the table for few.
        let filtered = unchanged.filter != nil
        unchanged.filter = nil
        try ordered.finish(matcher: { [transaction, writing] columns in
            guard !filtered else { return nil }
            let clock = ContinuousClock()
            let began = clock.now
            // Not timed through `phases.time`: the matcher goes to the merger's thread, and must
            // not pass through a closure that the compiler cannot see let go of it.
            let matcher = try transaction.storedRowMatcher(for: writing.entity, columns: columns)
            phases.add("upsert", PhaseTimes.seconds(began.duration(to: clock.now)))
            return matcher
        }, upsert: upsert)
        if ordered.sortingSeconds > 0 { phases.add("sort", ordered.sortingSeconds) }
        return FeedOutcome(duplicates: transaction.takeDuplicates(), phases: phases)
    }

    private func upsert(_ batch: RecordBatch) throws {
        try phases.time("upsert") { try transaction.upsert(batch, of: writing.entity, columns: batch.columns) }
        if writing.cancellation?.raised != nil { throw CancellationError() }
    }

    /// `batch` without the records the store holds with exactly their values, before they are
    /// sorted.
    private func dropUnchanged(_ batch: RecordBatch) throws -> RecordBatch {
        try phases.time("upsert") {
            if !unchanged.made {
                unchanged = (writing.filtersUnchanged ? try transaction.unchangedFilter(for: writing.entity, columns: batch.columns) : nil, true)
            }
            return unchanged.filter?.dropping(batch) ?? batch
        }
    }
}
