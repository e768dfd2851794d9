import ImporterModel

/// Whether a first load's next batch may be COPied straight into the entity table: none of its
/// keys equals another of its keys or a key admitted before, and every key can be hashed
/// (`StagedKeys.hash`). Up to `limit` records, each admitted key leaves 48 bits of its hash
/// (`KeyPrints`); the batches after a refusal are staged (`StagedUpsert`).
///
/// Invariant: `admit` returns true only if no key of the batch equals one admitted before, as
/// PostgreSQL compares them, so a direct COPY never meets the unique key. A refusal may be
/// spurious (two keys with the same 48 bits, or the limit reached); it costs speed, never
/// correctness. After a refusal the prints are incomplete: the caller drops them.
struct DirectKeys {
    /// Records admitted at most: bounds the prints' memory.
    static let defaultLimit = 6_000_000

    let types: [AttributeType]
    let limit: Int
    private var prints = KeyPrints()
    private(set) var count = 0

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
    }

    mutating func admit(_ batch: RecordBatch) -> Bool {
        guard count + batch.count <= limit else { return false }
        for record in 0..<batch.count {
            guard let hash = StagedKeys.hash(batch, record: record, types: types), prints.insert(hash) else { return false }
        }
        count += batch.count
        return true
    }
}
