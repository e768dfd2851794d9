import ImporterModel

/// Whether a first load's next batch may be COPied straight into the entity table: none of its
/// keys equals another of its keys or a key admitted before, and every key can be hashed
/// (`StagedKeys.hash`). Up to `limit` records, each admitted key leaves 48 bits of its hash: 16
/// choose one of 65,536 small sorted arrays, 32 are kept in it (4 bytes a key and the
/// allocator's share, in arrays that grow one at a time, so no growth holds two copies of the
/// whole); the batches after a refusal are staged (`StagedUpsert`).
///
/// Invariant: `admit` returns true only if no key of the batch equals one admitted before, as
/// PostgreSQL compares them, so a direct COPY never meets the unique key. A refusal may be
/// spurious (two keys with the same 48 bits, odds n²/2⁴⁹ for n keys; or the limit reached); it
/// costs speed, never correctness. After a refusal the arrays are incomplete: the caller drops
/// them.
struct DirectKeys {
    /// Records admitted at most: bounds the arrays' memory.
    static let defaultLimit = 6_000_000

    let types: [AttributeType]
    let limit: Int
    private var tables: [SortedFingerprints]
    private(set) var count = 0

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
        tables = Array(repeating: SortedFingerprints(), count: 1 << 16)
    }

    mutating func admit(_ batch: RecordBatch) -> Bool {
        guard count + batch.count <= limit else { return false }
        for record in 0..<batch.count {
            guard let hash = StagedKeys.hash(batch, record: record, types: types) else { return false }
            let bits = UInt64(bitPattern: Int64(hash))
            guard tables[Int(bits >> 48)].insert(UInt32(truncatingIfNeeded: bits)) else { return false }
        }
        count += batch.count
        return true
    }
}

/// A set of 32-bit fingerprints kept sorted in an array that grows by an eighth: a lookup is a
/// binary search, an insert moves the larger prints up one (a few dozen per array at millions of
/// keys). Smaller and faster than open addressing here (figures: Docs/PERFORMANCE.md,
/// "Measurements behind the code").
struct SortedFingerprints {
    private var prints: [UInt32] = []

    /// Adds `print`; false when it was there already.
    mutating func insert(_ print: UInt32) -> Bool {
        var low = 0, high = prints.count
        while low < high {
            let middle = (low + high) >> 1
            if prints[middle] < print { low = middle + 1 } else { high = middle }
        }
        if low < prints.count, prints[low] == print { return false }
        if prints.count == prints.capacity {
            // Grown by hand: `append` would double the capacity.
            var grown: [UInt32] = []
            grown.reserveCapacity(prints.count + prints.count / 8 + 4)
            grown.append(contentsOf: prints)
            prints = grown
        }
        prints.insert(print, at: low)
        return true
    }
}
