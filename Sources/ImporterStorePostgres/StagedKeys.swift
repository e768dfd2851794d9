import ImporterModel

/// Whether the keys staged for one entity are all distinct, told from a hash per staged record
/// (8 bytes each, in pages of 65,536 sorted at the end and merged), so that the set-based apply can
/// skip the dedupe (a sort and a window over the whole stage) when no key repeats (`StagedUpsert`'s
/// `distinctKeys`). Past `limit` records the hashes are dropped and the dedupe runs: memory stays
/// bounded (16 MB at the default) whatever the feed's size, and pages never copy each other, as a
/// growing array would at each doubling.
///
/// Invariant: `distinct()` is true only if no two staged keys are equal as PostgreSQL compares
/// them in the entity table's columns. Each key value is hashed in the form the column holds it:
/// text columns by the text COPY writes (equal text ⇔ equal value, the default collation being
/// deterministic), bigint columns by the integer, double columns by the number (so 1 and 1.0 hash
/// alike; -0.0 and 0.0 too). Equal hashes of different keys only cost the dedupe; a value whose
/// equality the hash cannot vouch for (NULL, NaN, a real in a bigint column) makes the answer false.
struct StagedKeys {
    /// Hashes kept at most.
    static let defaultLimit = 2_000_000
    private static let pageSize = 1 << 16

    /// The column type of each key position of the batches.
    let types: [AttributeType]
    let limit: Int
    private var pages: [[Int]] = []
    private var count = 0
    private var mayRepeat = false

    init(entity: EntityDescription, columns: [Int], keyPositions: [Int], limit: Int = Self.defaultLimit) {
        types = keyPositions.map { entity.attributes[columns[$0]].type }
        self.limit = limit
    }

    mutating func append(_ batch: RecordBatch, record: Int) {
        guard !mayRepeat else { return }
        guard count < limit, let hash = Self.hash(batch, record: record, types: types) else {
            mayRepeat = true
            pages = []
            return
        }
        if count % Self.pageSize == 0 { pages.append(Array(unsafeUninitializedCapacity: Self.pageSize) { _, initialized in initialized = 0 }) }
        pages[pages.count - 1].append(hash)
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

    /// True when no two staged keys can be equal; frees the hashes. Each page is sorted, then the
    /// pages are merged smallest first, looking for a hash met twice.
    mutating func distinct() -> Bool {
        defer { pages = [] }
        guard !mayRepeat else { return false }
        for index in pages.indices { pages[index].sort() }
        var heads = pages.indices.filter { !pages[$0].isEmpty }.map { (hash: pages[$0][0], page: $0, next: 1) }
        heads.sort { $0.hash < $1.hash }
        var previous: Int?
        // A sorted list of page heads: few pages (61 at the limit), so an insertion is cheap.
        while let head = heads.first {
            if head.hash == previous { return false }
            previous = head.hash
            heads.removeFirst()
            guard head.next < pages[head.page].count else { continue }
            let next = (hash: pages[head.page][head.next], page: head.page, next: head.next + 1)
            heads.insert(next, at: heads.firstIndex { $0.hash >= next.hash } ?? heads.endIndex)
        }
        return true
    }
}
