import ImporterModel
import ImporterSupport

/// A bounded queue between a producer thread (a feed's reader, a sorted runs' merger) and the
/// thread that writes its batches, so that the producer's next batch overlaps the store's work on
/// the current one (two cores: parsing on one, SQLite on the other).
///
/// - Order: the caller receives the batches and rejects in the order they were put, and an error
///   after them, so a bad record at line N fails the run exactly as a synchronous read would.
/// - Memory: at most `depth` batches wait in the queue; the producer blocks until one is taken.
///   Batches the caller is done with go back to the producer to be filled again (a batch's arrays
///   are megabytes: allocating them per batch cost page faults and zeroing, ~9 % of a reload).
/// - Ownership: the producer is a `sending` closure started on a `WorkerThread`; the caller only
///   takes events. When the caller stops early (its handler threw), the queue is cancelled and the
///   producer stops at its next `put` without waiting to be joined (it may be blocked on a pipe).
/// - Synchronization: the state is a `Monitor`, locked once per event (a batch or a reject), never
///   per record; the producer waits on it for room, the caller for an event.
package final class ReadAheadQueue<Position: Sendable>: Sendable {
    private enum Event {
        case batch(RecordBatch, Position)
        case reject(Reject)
        case end(Position)
        case failed(any Error)
    }

    /// Thrown to the producer when the caller cancelled the queue: the producer returns.
    package struct Cancelled: Error {}

    private struct State {
        var events: [Event] = []
        /// The batches among `events` (at most `depth`).
        var batches = 0
        /// Batches the caller has finished with, emptied, for the producer to fill again.
        var spares: [RecordBatch] = []
        var cancelled = false
    }

    private let state = Monitor(State())
    private let depth: Int

    package init(depth: Int) {
        self.depth = max(depth, 1)
    }

    /// Starts `produce` on a thread named `name` and takes its events on this one until its end:
    /// each batch to `onBatch`, each reject to `onReject`; returns the end's position.
    package func run(named name: String, _ produce: sending @escaping () -> Void, onReject: (Reject) throws -> Void,
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

    // MARK: The producer's side

    /// Posts a batch, waiting while `depth` batches wait, at the position `at` gives once there is
    /// room; the seconds waited.
    package func putBatch(_ batch: RecordBatch, at position: () -> Position) throws(Cancelled) -> Double {
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

    package func putReject(_ reject: Reject) throws(Cancelled) {
        try put(.reject(reject))
    }

    /// The producer's last event: its end.
    package func putEnd(_ position: Position) throws(Cancelled) {
        try put(.end(position))
    }

    /// The producer's last event: what it failed with.
    package func putFailure(_ error: any Error) {
        try? put(.failed(error))
    }

    /// A batch the caller is done with, emptied, to fill instead of allocating one.
    package func takeSpare() -> RecordBatch? {
        state.withLock { $0.spares.popLast() }
    }

    private func put(_ event: Event) throws(Cancelled) {
        try state.withLock { state throws(Cancelled) in
            guard !state.cancelled else { throw Cancelled() }
            state.events.append(event)
            if case .batch = event { state.batches += 1 }
        }
    }

    // MARK: The caller's side

    private func take() -> Event {
        state.wait { state -> Event? in
            guard !state.events.isEmpty else { return nil }
            let event = state.events.removeFirst()
            if case .batch = event { state.batches -= 1 }
            return event
        }
    }

    /// Gives a batch the caller is done with back to the producer, emptied. Taken as the last
    /// reference to its storage (unless the consumer kept a copy), so that emptying it keeps the
    /// storage instead of allocating more of the same capacity.
    private func recycle(_ batch: consuming RecordBatch) {
        batch.removeAll()
        let spare = consume batch
        state.withLock { if $0.spares.count < depth + 1 { $0.spares.append(spare) } }
    }

    private func cancel() {
        state.withLock {
            $0.cancelled = true
            $0.events.removeAll()
            $0.batches = 0
        }
    }
}

extension ReadAheadQueue where Position == Void {
    /// Merges sorted runs (`RunMerge`) on a thread of its own while the caller writes, handing
    /// each batch of `batchSize` records in key order to `onBatch` on the calling thread, once
    /// `matcher` (used on the merger's thread only) has noted its records the store holds unchanged.
    static func merge(_ merge: consuming sending RunMerge, batchSize: Int, depth: Int = 2, matcher: sending (any UnchangedRowMatcher)? = nil,
                             onBatch: (RecordBatch) throws -> Void) throws {
        let queue = ReadAheadQueue<Void>(depth: depth)
        // Moved into the thread's slots, not copied: a copy left here would share the merge's
        // blocks, and the merger's first refill of each would allocate it again. The matcher is
        // moved too, so that the merger lets go of it (and of its read transaction) before posting
        // the end, not whenever its thread is torn down.
        var slots: (merge: RunMerge?, matcher: (any UnchangedRowMatcher)?) = (consume merge, matcher)
        try queue.run(named: "importer run merger", {
            guard let merge = slots.merge.take() else { return }
            queue.produceMerged(merge, slots.matcher.take(), batchSize: batchSize)
        }, onReject: { _ in }) { batch, _ in
            try onBatch(batch)
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
                _ = try putBatch(full) { () }
            }
            matcher = nil
            try putEnd(())
        } catch is Cancelled {
            return
        } catch {
            putFailure(error)
        }
    }
}

/// Notes which records of key-ordered batches the store held unchanged before the import, so that
/// the store's upsert need not read their stored rows (made by the store, used on the merger's
/// thread while `KeyOrderedBatches` merges).
///
/// Invariant: a record is noted with a stored row's id only when that row held exactly the
/// record's key and values (as `IS` compares them) when the import began; any doubt notes 0. The
/// upsert skips a noted record only if the import has not written its row since (the row is then
/// as it was), so a note can never hide a change or a repeated key.
package protocol UnchangedRowMatcher: AnyObject {
    func note(_ batch: inout RecordBatch) throws
}
