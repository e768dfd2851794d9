import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// Reads a `MappedFeed` on a thread of its own while the caller writes its batches, so that the
/// scan and mapping of the next batch overlap the store's work on the current one (two cores:
/// parsing on one, SQLite on the other).
///
/// - Order: the caller receives the feed's batches and rejects in feed order, and a read error
///   after them, so a bad record at line N fails the run exactly as a synchronous read would.
/// - Memory: at most `depth` batches wait in the queue; the reader blocks until one is taken.
///   Batches the caller is done with go back to the reader to be filled again (a batch's arrays
///   are megabytes: allocating them per batch cost page faults and zeroing, ~9 % of a reload).
/// - Ownership: the feed is sent to the reader thread (`sending`, `WorkerThread`: the compiler
///   checks the caller keeps no reference), which owns it for good; the caller only takes events,
///   the last of which carries the feed's warnings and absent fields. When the caller stops early (its handler threw), the queue is cancelled and the
///   reader stops at its next event without waiting to be joined (it may be blocked on a pipe).
/// - Synchronization: the queue's state is a `Monitor`, locked once per event (a batch or a
///   reject), never per record; the reader waits on it for room, the caller for an event.
final class FeedReadAhead: Sendable {
    /// Where the reader was when it posted an event.
    struct Position {
        var records: Int
        var bytesRead: Int
        var totalBytes: Int?
        /// Seconds the reader spent reading and mapping so far (not waiting for the caller).
        var readingSeconds: Double = 0
        /// At the end of a feed: its warnings and the fields its records left out (the feed itself
        /// stays with the reader thread).
        var warnings: [String] = []
        var absences: [MappedFeed.FieldAbsence] = []
    }

    private enum Event {
        case batch(RecordBatch, Position)
        case reject(Reject)
        case end(Position)
        case failed(any Error)
    }

    /// Thrown inside the reader when the caller cancelled the queue.
    private struct Cancelled: Error {}

    private struct State {
        var events: [Event] = []
        /// The batches among `events` (at most `depth`).
        var batches = 0
        /// Batches the caller has finished with, emptied, for the reader to fill again.
        var spares: [RecordBatch] = []
        var cancelled = false
    }

    private let state = Monitor(State())
    private let depth: Int

    private init(depth: Int) {
        self.depth = depth
    }

    /// Reads `feed` ahead of the caller, handing each batch to `onBatch` and each reject to
    /// `onReject` on the calling thread; returns the reader's final position.
    static func read(_ feed: sending MappedFeed, batchSize: Int, depth: Int = 2, onReject: (Reject) throws -> Void,
                     onBatch: (RecordBatch, Position) throws -> Void) throws -> Position {
        let queue = FeedReadAhead(depth: max(depth, 1))
        return try queue.run(named: "importer feed reader", { queue.produce(feed, batchSize: batchSize) }, onReject: onReject, onBatch: onBatch)
    }

    /// Merges sorted runs (`RunMerge`) ahead of the caller in the same way, handing each batch of
    /// `batchSize` records in key order to `onBatch` on the calling thread, once `matcher` (used on
    /// the merger's thread only) has noted its records the store holds unchanged.
    static func merge(_ merge: consuming sending RunMerge, batchSize: Int, depth: Int = 2, matcher: sending (any UnchangedRowMatcher)? = nil,
                      onBatch: (RecordBatch) throws -> Void) throws {
        let queue = FeedReadAhead(depth: max(depth, 1))
        // Moved into the thread's slots, not copied: a copy left here would share the merge's
        // blocks, and the merger's first refill of each would allocate it again. The matcher is
        // moved too, so that the merger lets go of it (and of its read transaction) before posting
        // the end, not whenever its thread is torn down.
        var slots: (merge: RunMerge?, matcher: (any UnchangedRowMatcher)?) = (consume merge, matcher)
        _ = try queue.run(named: "importer run merger", {
            guard let merge = slots.merge.take() else { return }
            queue.produceMerged(merge, slots.matcher.take(), batchSize: batchSize)
        }, onReject: { _ in }) { batch, _ in
            try onBatch(batch)
        }
    }

    /// Starts `produce` on a thread and takes its events on this one until its end.
    private func run(named name: String, _ produce: sending @escaping () -> Void, onReject: (Reject) throws -> Void,
                     onBatch: (RecordBatch, Position) throws -> Void) throws -> Position {
        try WorkerThread.start(named: name, produce)
        do {
            while true {
                switch take() {
                case .batch(let batch, let position):
                    try onBatch(batch, position)
                    recycle(consume batch)
                case .reject(let reject): try onReject(reject)
                case .end(let position): return position
                case .failed(let error): throw error
                }
            }
        } catch {
            cancel()
            throw error
        }
    }

    /// The merger thread's body: every merged batch, then the end or the error.
    private func produceMerged(_ merge: consuming RunMerge, _ matcher: consuming (any UnchangedRowMatcher)?, batchSize: Int) {
        var merge = merge
        var matcher = matcher
        do {
            try merge.merge(batchSize: batchSize) { batch in
                var full = takeSpare() ?? RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions, capacity: batchSize)
                swap(&full, &batch)
                try matcher?.note(&full)
                _ = try putBatch(full) { Position(records: 0, bytesRead: 0) }
            }
            matcher = nil
            try put(.end(Position(records: 0, bytesRead: 0)))
        } catch is Cancelled {
            return
        } catch {
            try? put(.failed(error))
        }
    }

    /// The reader thread's body: every event of the feed, then its end or its error.
    private func produce(_ feed: MappedFeed, batchSize: Int) {
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
                try put(.reject(reject))
            } handOff: { batch in
                var full = takeSpare() ?? RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions, capacity: batchSize)
                swap(&full, &batch)
                blockedSeconds += try putBatch(full, at: position)
            }
            var end = position()
            (end.warnings, end.absences) = (feed.warnings, feed.absences)
            try put(.end(end))
        } catch is Cancelled {
            return
        } catch {
            try? put(.failed(error))
        }
    }

    /// Posts a batch, waiting while `depth` batches wait, at the position `at` gives once there is
    /// room; the seconds waited.
    private func putBatch(_ batch: RecordBatch, at position: () -> Position) throws(Cancelled) -> Double {
        let clock = ContinuousClock()
        let began = clock.now
        var waited = false
        let hasRoom = state.wait { state -> Bool? in
            if state.cancelled { return false }
            guard state.batches < depth else {
                waited = true
                return nil
            }
            return true
        }
        let blocked = waited ? PhaseTimes.seconds(began.duration(to: clock.now)) : 0
        guard hasRoom else { throw Cancelled() }
        try put(.batch(batch, position()))
        return blocked
    }

    private func put(_ event: Event) throws(Cancelled) {
        try state.withLock { state throws(Cancelled) in
            guard !state.cancelled else { throw Cancelled() }
            state.events.append(event)
            if case .batch = event { state.batches += 1 }
        }
    }

    private func take() -> Event {
        state.wait { state -> Event? in
            guard !state.events.isEmpty else { return nil }
            let event = state.events.removeFirst()
            if case .batch = event { state.batches -= 1 }
            return event
        }
    }

    /// Gives a batch the caller is done with back to the reader, emptied. Taken as the last
    /// reference to its storage (unless the consumer kept a copy), so that emptying it keeps the
    /// storage instead of allocating more of the same capacity.
    private func recycle(_ batch: consuming RecordBatch) {
        batch.removeAll()
        let spare = consume batch
        state.withLock { if $0.spares.count < depth + 1 { $0.spares.append(spare) } }
    }

    private func takeSpare() -> RecordBatch? {
        state.withLock { $0.spares.popLast() }
    }

    private func cancel() {
        state.withLock {
            $0.cancelled = true
            $0.events.removeAll()
            $0.batches = 0
        }
    }
}
