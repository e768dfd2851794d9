/// 48 bits of each key hash met so far: the top 16 choose one of 65,536 small sorted arrays, the
/// low 32 are kept in it, 4 bytes a key and the allocator's share. The arrays grow one at a time,
/// so no growth holds two copies of the whole. Two different keys share their 48 bits with odds
/// of about n²/2⁴⁹ among n keys; callers take a print met twice as a possible repeat, which costs
/// them speed, never correctness.
struct KeyPrints {
    private var sets = Array(repeating: SortedFingerprints(), count: 1 << 16)

    /// Adds the print of `hash`; false when it was there already.
    mutating func insert(_ hash: Int) -> Bool {
        let bits = UInt64(bitPattern: Int64(hash))
        return sets[Int(bits >> 48)].insert(UInt32(truncatingIfNeeded: bits))
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
