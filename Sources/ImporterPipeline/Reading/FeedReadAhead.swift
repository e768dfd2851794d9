import ImporterFeeds
import Foundation
import ImporterKeyOrder
import ImporterModel
import ImporterStore
import ImporterSupport

/// Reads a `MappedFeed` on a thread of its own while the caller writes its batches
/// (`ReadAheadQueue`: order, bounded memory, recycled batches, cancellation), so that the scan and
/// mapping of the next batch overlap the store's work on the current one.
///
/// Ownership: the feed is sent to the reader thread (`sending`, `WorkerThread`: the compiler checks
/// the caller keeps no reference), which owns it for good; the last event carries the feed's
/// warnings and absent fields.
enum FeedReadAhead {
    /// Where the reader was when it posted an event.
    struct Position: Sendable {
        var records: Int
        var bytesRead: Int
        var totalBytes: Int?
        /// Seconds the reader spent reading and mapping so far (not waiting for the caller).
        var readingSeconds: Double = 0
        /// At the end of a feed: its warnings and the fields its records left out (the feed itself
        /// stays with the reader thread).
        var warnings: [String] = []
        var absences: [MappedFeed.FieldAbsence] = []
        var keptParents: [[Value]] = []
        var unmapped: [UnmappedField] = []
        var rejectedKeys: [[Value]] = []
        var unkeyedRejects = 0
        var markedKeys: MarkedKeys?
    }

    /// Reads `feed` ahead of the caller, handing each batch to `onBatch` and each reject to
    /// `onReject` on the calling thread; returns the reader's final position.
    static func read(_ feed: sending MappedFeed, batchSize: Int, depth: Int = 2, onReject: (Reject) throws -> Void,
                     onBatch: (RecordBatch, Position) throws -> Void) throws -> Position {
        let queue = ReadAheadQueue<Position>(depth: depth)
        return try queue.run(named: "importer feed reader", { produce(feed, into: queue, batchSize: batchSize) }, onReject: onReject, onBatch: onBatch)
    }

    /// The reader thread's body: every event of the feed, then its end or its error.
    private static func produce(_ feed: MappedFeed, into queue: ReadAheadQueue<Position>, batchSize: Int) {
        let clock = ContinuousClock()
        let began = clock.now
        var blockedSeconds = 0.0
        func position() -> Position {
            let progress = feed.progress
            let elapsed = PhaseTimes.seconds(began.duration(to: clock.now))
            return Position(records: feed.records, bytesRead: progress.read, totalBytes: progress.total, readingSeconds: elapsed - blockedSeconds)
        }
        do {
            try feed.read(batchSize: batchSize) { reject in
                try queue.putReject(reject)
            } handOff: { batch in
                var full = queue.takeSpare() ?? RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions, capacity: batchSize)
                swap(&full, &batch)
                blockedSeconds += try queue.putBatch(full, at: position)
            }
            var end = position()
            (end.warnings, end.absences, end.keptParents, end.unmapped) = (feed.warnings, feed.absences, feed.keptParents, feed.unmapped)
            (end.rejectedKeys, end.unkeyedRejects, end.markedKeys) = (feed.rejectedKeys, feed.unkeyedRejects, feed.takeMarkedKeys())
            try queue.putEnd(end)
        } catch is ReadAheadQueue<Position>.Cancelled {
            return
        } catch {
            queue.putFailure(error)
        }
    }
}
