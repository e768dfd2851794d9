import ImporterModel

/// Whether a first load's next batch may be COPied straight into the entity table: none of its
/// keys equals another of its keys or a key admitted before, and every key can be hashed
/// (`StagedKeys.hash`). One hash per admitted record is kept (a `Set`: 16 MB for 1,000,000
/// records), up to `limit` records; the batches after a refusal are staged (`StagedUpsert`).
///
/// Invariant: `admit` returns true only if no key of the batch equals one admitted before, as
/// PostgreSQL compares them, so a direct COPY never meets the unique key. A refusal may be
/// spurious (two keys with one hash, or the limit reached); it costs speed, never correctness.
/// After a refusal the set is incomplete: the caller drops it.
struct DirectKeys {
    /// Records admitted at most: bounds the set's memory (2^21 buckets of 8 bytes).
    static let defaultLimit = 1_500_000

    let types: [AttributeType]
    let limit: Int
    private var seen: Set<Int> = []

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
        // Sized once: a set rehashing as it grows holds its old and new tables at once. Untouched
        // buckets cost address space, not memory.
        seen.reserveCapacity(limit)
    }

    var count: Int { seen.count }

    mutating func admit(_ batch: RecordBatch) -> Bool {
        guard seen.count + batch.count <= limit else { return false }
        for record in 0..<batch.count {
            guard let hash = StagedKeys.hash(batch, record: record, types: types), seen.insert(hash).inserted else { return false }
        }
        return true
    }
}
