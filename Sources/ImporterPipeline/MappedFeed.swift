import Foundation
import ImporterFeeds
import ImporterModel

/// A feed opened for reading: its records read and mapped into batches of its entity, the same
/// way for an import and for a check.
public final class MappedFeed {
    public let source: ByteSource
    /// Configured with the feed's header: its `columns` are the attributes the feed supplies.
    public let mapper: RecordMapper
    private let reader: RecordReader
    /// Records read so far, rejected ones included.
    public private(set) var records = 0

    /// Opens the feed and reads up to its first record.
    public init(_ input: FeedInput, entity: EntityDescription) throws {
        source = try ByteSource(path: input.path)
        reader = try FeedReaders.make(for: input.mapping, source: source)
        var mapper = try RecordMapper(entity: entity, mapping: input.mapping)
        try mapper.configure(header: try reader.open(requesting: mapper.requestedFields), sourceName: source.name)
        self.mapper = mapper
    }

    /// Bytes consumed so far, and the total when known.
    public var progress: (read: Int, total: Int?) { reader.progress }

    /// Reads every record: a rejected one goes to `onReject`; mapped ones are collected into
    /// batches of `batchSize`, each handed to `onBatch` when full, and the last one when not empty.
    public func read(batchSize: Int, onReject: (Reject) throws -> Void, onBatch: (RecordBatch) throws -> Void) throws {
        try read(batchSize: batchSize, onReject: onReject) { (batch: inout RecordBatch) in try onBatch(batch) }
    }

    /// `read`, handing each batch over in place: `handOff` may swap it for an empty batch of the
    /// same columns (one it has finished with), which the reader then fills, so that batches are
    /// reused instead of reallocated. Whatever `handOff` leaves is emptied before filling.
    public func read(batchSize: Int, onReject: (Reject) throws -> Void, handOff: (inout RecordBatch) throws -> Void) throws {
        let mapper = self.mapper
        var batch = mapper.makeBatch(capacity: batchSize)
        var record = mapper.makeRawRecord()
        while try reader.next(into: &record) {
            records += 1
            if let reject = mapper.map(record, into: &batch) {
                try onReject(reject)
            } else if batch.count >= batchSize {
                try handOff(&batch)
                batch.removeAll()
            }
        }
        if !batch.isEmpty { try handOff(&batch) }
    }
}
