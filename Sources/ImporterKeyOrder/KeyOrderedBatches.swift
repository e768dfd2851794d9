import ImporterModel
import ImporterSupport

/// Hands a feed's batches to the store in key order, with memory bounded whatever the feed's size
/// and order: an external merge sort that only runs when it is needed.
///
/// - While each batch's key range lies wholly after (or wholly before) the previous batch's, as
///   in a feed sorted by key either way, batches pass straight through (each is sorted within
///   itself by the store). The first batch waits for the second: a shuffled feed's first batch
///   written at once would reach records all over a large store, filling the page cache and the
///   store's record of what the run wrote (`SeenRecords`) while the feed is still being read
///   and held (Docs/PERFORMANCE.md).
/// - From the first batch whose range overlaps the previous one, batches are held until they
///   reach half of `runBytes`; each full run is sorted and spilled to an unnamed `SpillFile` in
///   `directory` by a `RunSpiller`, on a thread of its own while the next half fills (so at most
///   `runBytes` are held), and `finish` merges the runs (`RunMerge`, on a thread of its own while
///   the store writes) into batches of `batchSize` in key order. Held batches that never filled a
///   run are sorted in memory at the end.
///
/// Invariant: what the store receives is what the feed held, each record once, with its origin;
/// records of equal key keep their feed order (the sort is stable), so the `duplicates` choice of
/// the feed's mapping (last, first, reject) picks the same record as in feed order.
package final class KeyOrderedBatches {
    private let directory: String
    private let runBytes: Int
    private let batchSize: Int
    /// Copies of the smallest and largest key's records of the last batch passed on while
    /// streaming (copies: holding the batch itself would keep the reader from refilling it).
    private var previous: RecordBatch?
    /// The feed's first batch, until the second shows whether the feed streams in key order.
    private var first: RecordBatch?
    private var holding = false
    private var held: [RecordBatch] = []
    private var heldBytes = 0
    private var spiller: RunSpiller?
    /// A batch spilled: the runs' columns, feed and duplicates choice (all of one feed).
    private var lastLayout: RecordBatch?
    /// What the merge's readers hold between them, whatever the number of runs.
    private static let readersMemory = 4 << 20
    /// Seconds this thread spent sorting, spilling (or waiting for a run to be written) and
    /// merging (the merge's upserts not included).
    package private(set) var sortingSeconds = 0.0

    package init(directory: String, runBytes: Int, batchSize: Int) {
        self.directory = directory
        self.runBytes = runBytes
        self.batchSize = batchSize
    }

    /// Takes the feed's next batch; `upsert` receives what can be written now. Once the feed is
    /// out of key order, each batch passes through `dropUnchanged` (the store's
    /// filter of records it holds unchanged) before it is held, so that only what changed is sorted.
    package func add(_ batch: RecordBatch, dropUnchanged: (RecordBatch) throws -> RecordBatch = { $0 }, upsert: (RecordBatch) throws -> Void) throws {
        guard !batch.isEmpty else { return }
        if !holding {
            let (low, high, order) = Self.extremes(of: batch)
            if let previous, Self.overlap(previous, batch, low: low, high: high) {
                holding = true
                self.previous = nil
                if let first {
                    self.first = nil
                    try hold(first, dropUnchanged: dropUnchanged)
                }
            } else {
                if let first {
                    self.first = nil
                    try upsert(first)
                }
                let isFirst = previous == nil
                var bounds = RecordBatch(columns: batch.columns, keyPositions: batch.keyPositions, capacity: 2)
                bounds.appendRecord(low, of: batch)
                bounds.appendRecord(high, of: batch)
                previous = bounds
                var noted = batch
                if let order { noted.noteStrictKeyOrder(order) }
                if isFirst { first = noted } else { try upsert(noted) }
                return
            }
        }
        try hold(batch, dropUnchanged: dropUnchanged)
    }

    /// Keeps what `dropUnchanged` leaves of `batch` for sorting, spilling a full run.
    private func hold(_ batch: RecordBatch, dropUnchanged: (RecordBatch) throws -> RecordBatch) throws {
        let batch = try dropUnchanged(batch)
        guard !batch.isEmpty else { return }
        held.append(batch)
        heldBytes += Self.bytes(of: batch)
        if heldBytes >= runBytes / 2 { try timed { try spillHeld() } }
    }

    /// Writes what is held in key order: the held batches sorted in memory when no run was
    /// spilled (a reload whose unchanged records were dropped holds few), else the runs merged,
    /// their records the store holds unchanged noted on the merger's thread by the matcher
    /// `matcher` makes for the runs' columns, if any.
    package func finish(matcher: ([Int]) throws -> sending (any UnchangedRowMatcher)? = { _ in nil }, upsert: (RecordBatch) throws -> Void) throws {
        if let first {
            self.first = nil
            try upsert(first)
        }
        guard let spiller else {
            guard let layout = held.last else { return }
            let order = timed { RunSpiller.order(held) }
            let batches = held
            held = []
            heldBytes = 0
            var out = RecordBatch(columns: layout.columns, keyPositions: layout.keyPositions, capacity: batchSize)
            out.feed = layout.feed
            out.duplicates = layout.duplicates
            for start in stride(from: 0, to: order.count, by: batchSize) {
                out.removeAll()
                timed {
                    batches.withUnsafeBufferPointer { batches in
                        for reference in order[start..<min(start + batchSize, order.count)] {
                            out.appendRecord(Int(reference & 0xFFFF_FFFF), of: batches[Int(reference >> 32)])
                        }
                    }
                }
                try upsert(out)
            }
            return
        }
        if !held.isEmpty { try timed { try spillHeld() } }
        let runs = try timed { try spiller.finish() }
        self.spiller = nil
        try merge(runs, in: spiller.file, matcher: matcher, upsert: upsert)
    }

    private func merge(_ runs: [SortedRun], in file: SpillFile, matcher: ([Int]) throws -> sending (any UnchangedRowMatcher)?,
                       upsert: (RecordBatch) throws -> Void) throws {
        guard let template = lastLayout, !runs.isEmpty else { return }
        // Made of values only (the file's reading half, the layout), so that they can be sent.
        let (reading, columns, keyPositions, memory) = (file.reading, template.columns, template.keyPositions, Self.readersMemory / runs.count)
        let readers = runs.map { run in SortedRun.Reader(run, in: reading, columns: columns, keyPositions: keyPositions, memory: memory) }
        let clock = ContinuousClock()
        var upserting = Duration.zero
        let began = clock.now
        // Merged on a thread of its own while this one writes: the merge overlaps the store's work.
        try ReadAheadQueue<Void>.merge(try RunMerge(readers), batchSize: batchSize, matcher: try matcher(template.columns)) { batch in
            var batch = batch
            batch.feed = template.feed
            batch.duplicates = template.duplicates
            let start = clock.now
            try upsert(batch)
            upserting += start.duration(to: clock.now)
        }
        sortingSeconds += PhaseTimes.seconds(began.duration(to: clock.now) - upserting)
    }

    /// Hands the held batches to the spiller, to be sorted by key (stable) and written as one run.
    private func spillHeld() throws {
        guard let last = held.last else { return }
        let spiller = try self.spiller ?? RunSpiller(file: SpillFile(directory: directory))
        self.spiller = spiller
        lastLayout = last
        var batches: [RecordBatch] = []
        swap(&batches, &held)
        heldBytes = 0
        try spiller.spill(batches)
    }

    private func timed<T>(_ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let began = clock.now
        defer { sortingSeconds += PhaseTimes.seconds(began.duration(to: clock.now)) }
        return try body()
    }

    /// The records of `batch` with its smallest and its largest key, and the batch's strict key
    /// order when it has one (a feed sorted by key): then the extremes are its ends.
    private static func extremes(of batch: RecordBatch) -> (low: Int, high: Int, order: RecordBatch.KeyOrder?) {
        switch batch.findStrictKeyOrder() {
        case .ascending?: return (0, batch.count - 1, .ascending)
        case .descending?: return (batch.count - 1, 0, .descending)
        case nil: break
        }
        var low = 0, high = 0
        for record in 1..<batch.count {
            if batch.compareKeys(record, low) < 0 { low = record }
            if batch.compareKeys(record, high) > 0 { high = record }
        }
        return (low, high, nil)
    }

    /// Whether `batch`'s key range (its records `low` and `high`) overlaps the previous one's
    /// (`bounds`: its low and high records); touching at one key does not, a repeated key being
    /// the store's to merge, in order.
    private static func overlap(_ bounds: RecordBatch, _ batch: RecordBatch, low: Int, high: Int) -> Bool {
        RecordBatch.compareKeys(bounds, 1, batch, low) > 0 && RecordBatch.compareKeys(batch, high, bounds, 0) > 0
    }

    /// About what `batch` holds in memory.
    private static func bytes(of batch: RecordBatch) -> Int {
        batch.values.count * MemoryLayout<BatchValue>.stride + batch.arena.count + batch.count * MemoryLayout<RecordOrigin>.stride
    }
}
