import ImporterModel

/// Whether the keys staged for one entity are all distinct, told from 48 bits of a hash per staged
/// key (`KeyPrints`), so that the set-based apply can skip the dedupe (a sort and a window over the
/// whole stage) when no key repeats (`StagedUpsert`'s `distinctKeys`). Past `limit` records the
/// prints are dropped and the dedupe runs: memory stays bounded whatever the feed's size.
///
/// Invariant: `distinct()` is true only if no two staged keys are equal as PostgreSQL compares
/// them in the entity table's columns. Each key value is hashed in the form the column holds it:
/// text columns by the text COPY writes (equal text ⇔ equal value, the default collation being
/// deterministic), bigint columns by the integer, double columns by the number (so 1 and 1.0 hash
/// alike; -0.0 and 0.0 too). Equal prints of different keys only cost the dedupe; a value whose
/// equality the hash cannot vouch for (NULL, NaN, a real in a bigint column) makes the answer false.
struct StagedKeys {
    /// Keys printed at most.
    static let defaultLimit = 6_000_000

    /// The column type of each key position of the batches.
    let types: [AttributeType]
    let limit: Int
    /// Nil before the first staged key (the prints' 65,536 arrays are built then) and once the
    /// prints were given up.
    private var prints: KeyPrints?
    private var gaveUp = false
    private var count = 0

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
    }

    mutating func append(_ batch: RecordBatch, record: Int) {
        guard !gaveUp else { return }
        if prints == nil { prints = KeyPrints() }
        guard count < limit, let hash = Self.hash(batch, record: record, types: types), prints?.insert(hash) == true else {
            prints = nil
            gaveUp = true
            return
        }
        count += 1
    }

    /// The hash of a record's key as the entity table's columns of `types` hold it; nil when the
    /// hash cannot stand for its equality. Equal keys have equal hashes (within one process).
    static func hash(_ batch: RecordBatch, record: Int, types: [AttributeType]) -> Int? {
        var hasher = Hasher()
        for (position, type) in zip(batch.keyPositions, types) {
            guard hash(batch.publicValue(record: record, position: position), as: type, into: &hasher) else { return nil }
        }
        return hasher.finalize()
    }

    /// Hashes `value` as its column holds it; false when the hash cannot stand for its equality.
    private static func hash(_ value: Value, as type: AttributeType, into hasher: inout Hasher) -> Bool {
        switch (PostgresEntitySchema.sqlType(type), value) {
        case (_, .null): return false
        case ("text", .text(let text)): hasher.combine(text)
        case ("text", .integer(let integer)): hasher.combine(String(integer))
        case ("text", .real(let real)): hasher.combine(real.description)
        case ("bigint", .integer(let integer)): hasher.combine(integer)
        case ("double precision", .integer(let integer)): hasher.combine(Double(integer))
        case ("double precision", .real(let real)) where !real.isNaN: hasher.combine(real)
        default: return false
        }
        return true
    }

    /// True when no two staged keys can be equal; frees the prints.
    mutating func distinct() -> Bool {
        defer { prints = nil; gaveUp = true }
        return !gaveUp
    }
}
