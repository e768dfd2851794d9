import Foundation
import ImporterModel

/// Reads a `MappedFeed` on a thread of its own while the caller writes its batches, so that the
/// scan and mapping of the next batch overlap the store's work on the current one (two cores:
/// parsing on one, SQLite on the other).
///
/// - Order: the caller receives the feed's batches and rejects in feed order, and a read error
///   after them, so a bad record at line N fails the run exactly as a synchronous read would.
/// - Memory: at most `depth` batches wait in the queue; the reader blocks until one is taken.
///   Batches the caller is done with go back to the reader to be filled again (a batch's arrays
///   are megabytes: allocating them per batch cost page faults and zeroing, ~9 % of a reload).
/// - Ownership: the reader thread owns the feed until it posts the end of the feed; the caller only
///   takes events. When the caller stops early (its handler threw), the queue is cancelled and the
///   reader stops at its next event without waiting to be joined (it may be blocked on a pipe).
final class FeedReadAhead: @unchecked Sendable {
    /// Where the reader was when it posted an event.
    struct Position {
        var records: Int
        var bytesRead: Int
        var totalBytes: Int?
        /// Seconds the reader spent reading and mapping so far (not waiting for the caller).
        var readingSeconds: Double = 0
    }

    private enum Event {
        case batch(RecordBatch, Position)
        case reject(Reject)
        case end(Position)
        case failed(any Error)
    }

    /// Thrown inside the reader when the caller cancelled the queue.
    private struct Cancelled: Error {}

    private let condition = NSCondition()
    private var events: [Event] = []
    private var batchesWaiting = 0
    /// Batches the caller has finished with, emptied, for the reader to fill again.
    private var spares: [RecordBatch] = []
    private var cancelled = false
    private let depth: Int
    /// Seconds the reader waited for room in the queue (reader thread only).
    private var blockedSeconds: Double = 0

    private init(depth: Int) {
        self.depth = depth
    }

    /// Reads `feed` ahead of the caller, handing each batch to `onBatch` and each reject to
    /// `onReject` on the calling thread; returns the reader's final position.
    static func read(_ feed: MappedFeed, batchSize: Int, depth: Int = 2, onReject: (Reject) throws -> Void,
                     onBatch: (RecordBatch, Position) throws -> Void) throws -> Position {
        let queue = FeedReadAhead(depth: max(depth, 1))
        let owned = UncheckedFeed(feed: feed)
        let thread = Thread { queue.produce(owned.feed, batchSize: batchSize) }
        thread.name = "importer feed reader"
        thread.stackSize = 8 << 20
        thread.start()
        do {
            while true {
                switch queue.take() {
                case .batch(let batch, let position):
                    try onBatch(batch, position)
                    queue.recycle(batch)
                case .reject(let reject): try onReject(reject)
                case .end(let position): return position
                case .failed(let error): throw error
                }
            }
        } catch {
            queue.cancel()
            throw error
        }
    }

    /// The reader thread's body: every event of the feed, then its end or its error.
    private func produce(_ feed: MappedFeed, batchSize: Int) {
        let clock = ContinuousClock()
        let began = clock.now
        func position() -> Position {
            let progress = feed.progress
            let elapsed = PhaseTimes.seconds(began.duration(to: clock.now))
            return Position(records: feed.records, bytesRead: progress.read, totalBytes: progress.total, readingSeconds: elapsed - blockedSeconds)
        }
        do {
            try feed.read(batchSize: batchSize) { reject in
                try put(.reject(reject))
            } handOff: { batch in
                var full = takeSpare() ?? RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions, capacity: batchSize)
                swap(&full, &batch)
                try put(.batch(full, position()))
            }
            try put(.end(position()))
        } catch is Cancelled {
            return
        } catch {
            try? put(.failed(error))
        }
    }

    private func put(_ event: Event) throws {
        condition.lock()
        defer { condition.unlock() }
        let isBatch = if case .batch = event { true } else { false }
        if isBatch, batchesWaiting >= depth, !cancelled {
            let clock = ContinuousClock()
            let began = clock.now
            while batchesWaiting >= depth, !cancelled { condition.wait() }
            blockedSeconds += PhaseTimes.seconds(began.duration(to: clock.now))
        }
        guard !cancelled else { throw Cancelled() }
        events.append(event)
        if isBatch { batchesWaiting += 1 }
        condition.broadcast()
    }

    private func take() -> Event {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty { condition.wait() }
        let event = events.removeFirst()
        if case .batch = event { batchesWaiting -= 1 }
        condition.broadcast()
        return event
    }

    /// Gives a batch the caller is done with back to the reader.
    private func recycle(_ batch: RecordBatch) {
        var batch = batch
        batch.removeAll()
        condition.lock()
        if spares.count < depth + 1 { spares.append(batch) }
        condition.unlock()
    }

    private func takeSpare() -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        return spares.popLast()
    }

    private func cancel() {
        condition.lock()
        cancelled = true
        events.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// The feed handed to the reader thread, which owns it from then on (see `FeedReadAhead`).
private struct UncheckedFeed: @unchecked Sendable {
    let feed: MappedFeed
}
