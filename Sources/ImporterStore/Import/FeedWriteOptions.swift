import ImporterModel
import ImporterSupport

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
