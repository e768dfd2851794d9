import ImporterModel

/// Whether a first load's next batch may be COPied straight into the entity table: none of its
/// keys equals another of its keys or a key admitted before, and every key can be hashed
/// (`StagedKeys.hash`). Up to `limit` records, each admitted key leaves 48 bits of its hash: 16
/// choose one of 65,536 small open-addressing tables, 32 are kept in it (about 6 bytes a key, in
/// tables that grow one at a time, so no growth holds two copies of the whole); the batches
/// after a refusal are staged (`StagedUpsert`).
///
/// Invariant: `admit` returns true only if no key of the batch equals one admitted before, as
/// PostgreSQL compares them, so a direct COPY never meets the unique key. A refusal may be
/// spurious (two keys with the same 48 bits: at 1,000,000 keys about once in 560 loads, at
/// 5,000,000 once in 23; or the limit reached); it costs speed, never correctness. After a
/// refusal the tables are incomplete: the caller drops them.
struct DirectKeys {
    /// Records admitted at most: bounds the tables' memory (about 36 MB at the limit).
    static let defaultLimit = 6_000_000

    let types: [AttributeType]
    let limit: Int
    private var tables: [FingerprintTable]
    private(set) var count = 0

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
        tables = Array(repeating: FingerprintTable(), count: 1 << 16)
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

/// A set of 32-bit fingerprints, open addressing with linear probing; a fingerprint's home slot
/// is derived from the fingerprint itself, so the table can grow without the keys. 0 marks an
/// empty slot (the fingerprint 0 is kept as 1).
struct FingerprintTable {
    private var slots: [UInt32] = []
    private var count = 0

    /// Adds `fingerprint`; false when it was there already.
    mutating func insert(_ fingerprint: UInt32) -> Bool {
        let print = max(fingerprint, 1)
        if (count + 1) * 8 > slots.count * 7 { grow() }
        var slot = Self.home(print, slots.count)
        while slots[slot] != 0 {
            if slots[slot] == print { return false }
            slot = slot + 1 == slots.count ? 0 : slot + 1
        }
        slots[slot] = print
        count += 1
        return true
    }

    /// The slot a fingerprint starts its probe at: multiply-shift onto any capacity.
    private static func home(_ print: UInt32, _ capacity: Int) -> Int { Int((UInt64(print) &* UInt64(capacity)) >> 32) }

    /// Half as large again (8 slots at first): memory stays between 4.6 and 6.9 bytes a key.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: max(8, old.count * 3 / 2))
        count = 0
        for print in old where print != 0 { _ = insert(print) }
    }
}
