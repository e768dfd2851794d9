import ImporterModel

/// Merges sorted runs into batches in key order: a binary heap of the runs' readers, ordered by
/// their current record's key, then by run (so records of equal key come out in feed order, the
/// runs being cut in feed order).
struct RunMerge {
    private var readers: [SortedRun.Reader]
    /// Reader indices, a min-heap by (current key, reader index).
    private var heap: [Int]

    init(_ readers: [SortedRun.Reader]) {
        self.readers = readers
        heap = []
        for index in readers.indices where readers[index].hasRecord { push(index) }
    }

    /// Calls `emit` with batches of up to `batchSize` records (the readers' columns) until every
    /// run is read; `emit` may take the batch's storage, leaving another (emptied) in its place.
    mutating func merge(batchSize: Int, emit: (inout RecordBatch) throws -> Void) throws {
        guard let first = readers.first else { return }
        var out = RecordBatch(columns: first.block.columns, keyPositions: first.block.keyPositions, capacity: batchSize)
        while let top = heap.first {
            let reader = readers[top]
            out.appendRecord(reader.index, of: reader.block)
            try reader.advance()
            if reader.hasRecord { siftDown(0) } else { removeTop() }
            if out.count == batchSize {
                try emit(&out)
                out.removeAll()
            }
        }
        if !out.isEmpty { try emit(&out) }
    }

    @inline(__always)
    private func less(_ a: Int, _ b: Int) -> Bool {
        let x = readers[a], y = readers[b]
        let order = RecordBatch.compareKeys(x.block, x.index, y.block, y.index)
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
