import ImporterModel

/// Merges sorted runs into batches in key order: a binary heap of the runs' readers, ordered by
/// their current record's key, then by run (so records of equal key come out in feed order, the
/// runs being cut in feed order).
///
/// Moved, never copied, to the thread that merges (`ReadAheadQueue.merge`): a copy would share its
/// blocks, and the first refill of each would allocate it again.
struct RunMerge {
    private var readers: [SortedRun.Reader]
    /// Each reader's decoded block, and the index in it of the reader's current record.
    private var blocks: [RecordBatch]
    private var current: [Int]
    /// Reader indices, a min-heap by (current key, reader index).
    private var heap: [Int]

    init(_ readers: [SortedRun.Reader]) throws(SpillError) {
        self.readers = readers
        blocks = []
        for reader in readers {
            var block = reader.makeBlock()
            try reader.refill(&block)
            blocks.append(block)
        }
        current = Array(repeating: 0, count: readers.count)
        heap = []
        for index in readers.indices where count(index) > 0 { push(index) }
    }

    /// Calls `emit` with batches of up to `batchSize` records (the readers' columns) until every
    /// run is read; `emit` may take the batch's storage, leaving another (emptied) in its place.
    mutating func merge(batchSize: Int, emit: (inout RecordBatch) throws -> Void) throws {
        guard let first = blocks.first else { return }
        var out = RecordBatch(columns: first.columns, keyPositions: first.keyPositions, capacity: batchSize)
        while let top = heap.first {
            Self.append(current[top], of: &blocks[top], to: &out)
            if try advance(top) { siftDown(0) } else { removeTop() }
            if out.count == batchSize {
                try emit(&out)
                out.removeAll()
            }
        }
        if !out.isEmpty { try emit(&out) }
    }

    /// Appends record `record` of `block` to `batch`. The block comes in place (inout, though
    /// only read): passed as a value, it was copied, its arrays retained and released, per record.
    @inline(__always)
    private static func append(_ record: Int, of block: inout RecordBatch, to batch: inout RecordBatch) {
        batch.appendRecord(record, of: block)
    }

    /// Moves reader `index` past its current record, decoding its next block when this one is
    /// done; whether it has a record left.
    @inline(__always)
    private mutating func advance(_ index: Int) throws(SpillError) -> Bool {
        current[index] += 1
        guard current[index] == count(index) else { return true }
        current[index] = 0
        try readers[index].refill(&blocks[index])
        return count(index) > 0
    }

    /// How many records reader `index`'s block holds, read in place (as `blocks[index].count`, the
    /// block would be copied).
    @inline(__always)
    private func count(_ index: Int) -> Int {
        blocks.withUnsafeBufferPointer { $0[index].count }
    }

    /// Whether reader `a`'s current record comes before reader `b`'s. The blocks are read in place
    /// (through a buffer pointer): read as array elements, each comparison would copy two
    /// batches, retaining and releasing their arrays, several times per record merged.
    @inline(__always)
    private func less(_ a: Int, _ b: Int) -> Bool {
        let order = blocks.withUnsafeBufferPointer { blocks in
            RecordBatch.compareKeys(blocks[a], current[a], blocks[b], current[b])
        }
        return order != 0 ? order < 0 : a < b
    }

    private mutating func push(_ reader: Int) {
        heap.append(reader)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func removeTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, less(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard less(heap[smallest], heap[parent]) else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
