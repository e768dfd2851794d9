import ImporterModel
import ImporterSupport

/// Writes one feed's records of one entity the way its store writes best: SQLite in key order,
/// sorting a shuffled feed through temporary files and dropping the records it holds unchanged;
/// PostgreSQL by COPY, straight into the table on a first load or into a stage applied later
/// (`ImportWriting.applyUpserts`). The shape of postgres-nio's `copyFrom(… writeData:)`.
///
/// Protocol: made by `ImportWriting.beginFeed`; the caller `add`s the feed's batches in feed order
/// (each stamped with the feed's index and `duplicates` choice), then calls `finish` once. After
/// an error the writer is abandoned with its store transaction, which rolls back.
public protocol FeedWriter: AnyObject {
    /// Writes `batch`, or holds it for the order the store writes best in. Feed values win for the
    /// supplied attributes; a record equal to the stored one writes nothing; a key already
    /// written in this import is kept as the batch's `duplicates` says (by the same feed) or
    /// merged over (by another).
    func add(_ batch: RecordBatch) throws
    /// Writes what was held: the feed is then written (or staged) whole. Returns the repeated keys
    /// met and where the time went.
    func finish() throws -> FeedOutcome
}
