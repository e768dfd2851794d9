import ImporterModel
import ImporterStore

/// The deltas of several views of one entity from one scan of its change rows: per record, each
/// view expression (group or aggregate argument) over its before-image (which leaves its group) and
/// over its after-image (which enters one), aggregated in memory into delta rows laid out as
/// `ViewSQL.delta`'s, for `ViewDeltaApplier`. One row per record instead of a signed row per image,
/// and no `GROUP BY`: the shared scan and the hash aggregation are what make a replay cost about
/// what its delta is.
///
/// Follows `ViewSQL.delta`: a record contributes its net change over the range (the before-image
/// of its first relevant change, the after-image of its last one); update rows that touch none of
/// the views' attributes are skipped, and so is, per view, a record whose images agree on what the
/// view reads; sums and counts are signed; min/max keep the extreme entering and the extreme
/// leaving each group, in `Value.compare`'s order (which `SQLDialect.ordered` matches). The deltas
/// may thus differ from SQL's by records that change nothing in a view, never in what applying
/// them gives. Memory grows with the groups touched, so `add` gives up (returns
/// false) past `maximumGroups` and callers fall back to `ViewDeltaApplier`'s SQL.
package struct ViewDeltaScan {
    package let entity: EntityDescription
    package let schemas: [ViewSQL]
    package var maximumGroups = 100_000
    /// The names (stored or derived attributes) the views read, each once: the scan selects each
    /// over the after-image, then each over the before-image.
    private let names: [String]
    private let groupColumns: [[Int]]
    private let argumentColumns: [[Int?]]
    private var deltas: [Deltas]

    /// `schemas`: views of one entity (`entity`), in one dialect.
    package init(entity: EntityDescription, schemas: [ViewSQL]) {
        var names: [String] = []
        func column(_ name: String) -> Int {
            if let index = names.firstIndex(of: name) { return index }
            names.append(name)
            return names.count - 1
        }
        groupColumns = schemas.map { $0.view.groupBy.map(column) }
        argumentColumns = schemas.map { $0.view.aggregates.map { $0.attribute.map(column) } }
        self.names = names
        self.entity = entity
        self.schemas = schemas
        deltas = schemas.map { Deltas(initial: Accumulator(states: $0.view.aggregates.map(DeltaState.initial))) }
    }

    /// Columns of a scan row: whether the record leaves a group (1/0), whether it enters one, then
    /// the names over the after-image, then over the before-image.
    package var width: Int { 2 + 2 * names.count }

    /// The scan of the change rows with ids in parameters 1...2. `oneTransaction`: the range lies in
    /// one transaction, so each record has at most one change row there (no first/last per record).
    package func query(oneTransaction: Bool, dialect: any SQLDialect) -> String {
        let scan = ChangeScanSQL(entity: entity, dialect: dialect, oneTransaction: oneTransaction,
                                 attributes: schemas.reduce(into: Set<String>()) { $0.formUnion($1.view.storedAttributes(of: entity)) })
        let images = [scan.afterImage, scan.beforeImage].flatMap { image in
            names.map { entity.expression(for: $0)?.sql(dialect, column: image) ?? "NULL" }
        }
        return scan.select([scan.leaves, scan.enters] + images)
    }

    /// Adds one scan row (`width` values); false when the views touch more than `maximumGroups`
    /// groups (the scan's deltas are then incomplete).
    package mutating func add(_ row: [Value]) -> Bool {
        let leaves = row[0].integerValue == 1, enters = row[1].integerValue == 1
        for view in schemas.indices {
            if leaves && enters && !changes(row, view: view) { continue }
            if enters { add(row, offset: 2, sign: 1, view: view) }
            if leaves { add(row, offset: 2 + names.count, sign: -1, view: view) }
            if deltas[view].keys.count > maximumGroups { return false }
        }
        return true
    }

    /// Whether a record's images differ in what the view reads: an update of other attributes (of
    /// another view) leaves the view as it is, and adding both images would only add noise (equal
    /// extremes entering and leaving, sums rounded twice).
    private func changes(_ row: [Value], view: Int) -> Bool {
        let before = 2 + names.count
        for column in groupColumns[view] where row[2 + column] != row[before + column] { return true }
        for case let column? in argumentColumns[view] where row[2 + column] != row[before + column] { return true }
        return false
    }

    private mutating func add(_ row: [Value], offset: Int, sign: Int64, view: Int) {
        let slot = deltas[view].slot(of: ViewGroupKey(row, columns: groupColumns[view], offset: offset))
        deltas[view].accumulators[slot].add(row, offset: offset, arguments: argumentColumns[view], sign: sign)
    }

    /// The delta rows of the view at `index` in `schemas`: groups, then the change in records, then
    /// per aggregate its delta columns (see `ViewSQL.delta`).
    package func deltaRows(_ index: Int) -> [[Value]] {
        zip(deltas[index].keys, deltas[index].accumulators).map { key, accumulator in
            key.values + [.integer(accumulator.rows)] + accumulator.states.flatMap(\.deltaColumns)
        }
    }

    /// One view's groups in the order met, each with its accumulator. Records of a feed often come
    /// group by group (a year's records together), so the last group is tried before hashing.
    private struct Deltas {
        let initial: Accumulator
        var keys: [ViewGroupKey] = []
        var accumulators: [Accumulator] = []
        var slots: [ViewGroupKey: Int] = [:]
        var last: Int?

        init(initial: Accumulator) { self.initial = initial }

        mutating func slot(of key: ViewGroupKey) -> Int {
            if let last, keys[last] == key { return last }
            let slot = slots[key] ?? {
                keys.append(key)
                accumulators.append(initial)
                slots[key] = keys.count - 1
                return keys.count - 1
            }()
            last = slot
            return slot
        }
    }

    private struct Accumulator {
        var states: [DeltaState]
        var rows: Int64 = 0

        mutating func add(_ row: [Value], offset: Int, arguments: [Int?], sign: Int64) {
            for position in states.indices {
                states[position].add(arguments[position].map { row[offset + $0] }, sign: sign)
            }
            rows += sign
        }
    }
}
