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

/// What a feed writer needs to know besides the records.
public struct FeedWriteOptions: Sendable {
    public var entity: EntityDescription
    /// Records per batch, as the reader fills them (a sort's merge hands on batches of this size).
    public var batchSize: Int
    /// Memory a sort may hold before it spills a run to a temporary file.
    public var sortRunBytes: Int
    /// Whether records the store holds unchanged may be dropped before a sort.
    public var filtersUnchanged: Bool
    /// Where a sort may keep unnamed temporary files.
    public var temporaryDirectory: String
    /// Polled between batches of long work inside the writer (a sort's merge): once raised, the
    /// writer throws `CancellationError`.
    public var cancellation: CancellationFlag?

    public init(entity: EntityDescription, batchSize: Int, sortRunBytes: Int, filtersUnchanged: Bool, temporaryDirectory: String,
                cancellation: CancellationFlag? = nil) {
        self.entity = entity
        self.batchSize = batchSize
        self.sortRunBytes = sortRunBytes
        self.filtersUnchanged = filtersUnchanged
        self.temporaryDirectory = temporaryDirectory
        self.cancellation = cancellation
    }
}

/// What writing a feed came to (`FeedWriter.finish`).
public struct FeedOutcome: Sendable {
    /// The repeated keys met while writing (a store that stages records finds them when applying).
    public var duplicates = DuplicateLog()
    /// Seconds spent writing (`upsert`) and putting the feed in key order (`sort`).
    public var phases = PhaseTimes()

    public init(duplicates: DuplicateLog = DuplicateLog(), phases: PhaseTimes = PhaseTimes()) {
        self.duplicates = duplicates
        self.phases = phases
    }
}
