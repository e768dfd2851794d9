import ImporterModel

/// Whether the keys staged for one entity are all distinct, so that the set-based apply can skip
/// the dedupe (a sort and a window over the whole stage) when no key repeats (`StagedUpsert`'s
/// `distinctKeys`). Told two ways:
/// - while the keys come in one strict order (ascending or descending, as most feeds are sorted),
///   each key differs from the one before it, so none repeats: one comparison per key, nothing
///   kept but the last key. A first batch out of order turns to the prints below; a later one
///   gives up (the keys before it were not printed);
/// - else from 48 bits of a hash per staged key (`KeyPrints`). Past `limit` records the prints
///   are dropped and the dedupe runs: memory stays bounded whatever the feed's size.
///
/// Invariant: `distinct()` is true only if no two staged keys are equal as PostgreSQL compares
/// them in the entity table's columns. Each key value is hashed in the form the column holds it:
/// text columns by the text COPY writes (equal text ⇔ equal value, the default collation being
/// deterministic), bigint columns by the integer, double columns by the number (so 1 and 1.0 hash
/// alike; -0.0 and 0.0 too). Equal prints of different keys only cost the dedupe; a value whose
/// equality the hash cannot vouch for (NULL, NaN, a real in a bigint column) makes the answer false.
/// The order is `RecordBatch.compareKeys`' (text by bytes, numbers by value), taken only over values
/// the column holds as they are (text in a text column, integers in a bigint one, numbers but NaN in
/// a double one), so that a strict step between two keys means they differ in the table too.
struct StagedKeys {
    /// Keys printed at most.
    static let defaultLimit = 6_000_000

    /// The column type of each key position of the batches.
    let types: [AttributeType]
    /// How each key position's column holds its values, for the order's test.
    private let storage: [Storage]

    private enum Storage { case text, bigint, double }
    let limit: Int
    /// Keys that came in one strict order.
    private struct Ordered {
        /// Nil until two keys showed it.
        var order: RecordBatch.KeyOrder?
        /// The last key, as a batch of that one record; nil before the first batch.
        var last: RecordBatch?
    }

    /// Nil once a batch broke the order.
    private var ordered: Ordered? = Ordered()
    /// Nil while the keys are ordered, and once the prints were given up (built at the first batch
    /// out of order).
    private var prints: KeyPrints?
    private var gaveUp = false
    private var count = 0

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        storage = types.map { type in
            switch PostgresEntitySchema.sqlType(type) {
            case "bigint": .bigint
            case "double precision": .double
            default: .text
            }
        }
        self.limit = limit
    }

    /// Notes the keys of `batch`'s `records`, in the order they were staged.
    mutating func append(_ batch: RecordBatch, records: [Int]) {
        guard !gaveUp, !records.isEmpty else { return }
        if let ordered {
            if let order = Self.strictOrder(of: batch, records, storage: storage, after: ordered) {
                self.ordered = Ordered(order: order, last: batch.keeping([records[records.count - 1]]))
                return
            }
            self.ordered = nil
            // The keys before this batch were not printed: only the first batch can start the prints.
            guard ordered.last == nil else { return giveUp() }
            prints = KeyPrints()
        }
        for record in records {
            guard count < limit, let hash = Self.hash(batch, record: record, types: types), prints?.insert(hash) == true else { return giveUp() }
            count += 1
        }
    }

    private mutating func giveUp() {
        prints = nil
        ordered = nil
        gaveUp = true
    }

    /// The strict order of `previous`' keys and then `records`' (nil inside while a single key was
    /// met), or nil when two neighbours tie or turn, or a key value is not one the order vouches for.
    private static func strictOrder(of batch: RecordBatch, _ records: [Int], storage: [Storage],
                                    after previous: Ordered) -> RecordBatch.KeyOrder?? {
        var order = previous.order
        func step(_ comparison: Int) -> Bool {
            guard comparison != 0 else { return false }
            let next: RecordBatch.KeyOrder = comparison < 0 ? .ascending : .descending
            if let order, order != next { return false }
            order = next
            return true
        }
        guard records.allSatisfy({ isOrderable(batch, record: $0, storage: storage) }) else { return nil }
        if let last = previous.last, !step(RecordBatch.compareKeys(last, 0, batch, records[0])) { return nil }
        for index in records.indices.dropFirst() where !step(batch.compareKeys(records[index - 1], records[index])) { return nil }
        return .some(order)
    }

    /// Whether the record's key values are held by their columns as they are (see the invariant).
    private static func isOrderable(_ batch: RecordBatch, record: Int, storage: [Storage]) -> Bool {
        for (position, column) in zip(batch.keyPositions, storage) {
            switch (column, batch.value(record: record, position: position)) {
            case (.text, .text), (.bigint, .integer), (.double, .integer): continue
            case (.double, .real(let real)) where !real.isNaN: continue
            default: return false
            }
        }
        return true
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
        defer { giveUp() }
        return !gaveUp
    }
}
