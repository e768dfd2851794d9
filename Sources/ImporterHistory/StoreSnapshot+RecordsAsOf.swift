import ImporterModel
import ImporterStore

/// An entity's records as they stood after a past transaction, read from the table as it is now
/// and the history after that transaction, walked back: for each record a later transaction
/// touched, its first change after the point says what it was then (an insert: it did not exist;
/// an update: its values with the changed attributes' old values; a delete: its values). Memory
/// holds only the records changed since; the others stream from the table in key order, merged
/// with the changed ones (sorted by key).
extension StoreSnapshot {
    /// Calls `body` with each record of `entity` (its values, in attribute order) as it stood after
    /// transaction `number`, in key order. Throws `HistoryError.expiredPoint` when history after
    /// `number` was purged.
    public func forEachRecord(of entity: EntityDescription, asOf number: Int64, _ body: ([Value]) throws -> Void) throws {
        let purged = try history.purgedThrough()
        guard number >= purged else { throw HistoryError.expiredPoint(number: number, purgedThrough: purged) }
        let head = try history.lastTransactionNumber()
        // The state then of each record changed since: nil when it did not exist.
        var then: [Int64: [Value]?] = [:]
        if number < head {
            let filter = ChangeFilter(entities: [entity.name])
            try forEachChange(after: number, through: head, filter: filter) { change in
                guard then[change.recordID] == nil else { return }
                switch change.type {
                case .insert: then[change.recordID] = .some(nil)
                case .delete: then[change.recordID] = Self.values(of: entity, in: change.values)
                case .update:
                    var values = change.values
                    for old in change.changed { if let index = values.firstIndex(where: { $0.0 == old.attribute }) { values[index].1 = old.old } }
                    then[change.recordID] = Self.values(of: entity, in: values)
                }
            }
        }
        let keyIndices = entity.keyIndices
        func key(_ values: [Value]) -> [Value] { keyIndices.map { values[$0] } }
        func precedes(_ a: [Value], _ b: [Value]) -> Bool {
            for (x, y) in zip(a, b) where Value.compare(x, y) != 0 { return Value.compare(x, y) < 0 }
            return false
        }
        var changed = then.values.compactMap { $0 }.sorted { precedes(key($0), key($1)) }[...]
        try records.forEachRecord(of: entity) { id, values in
            guard then[id] == nil else { return }
            while let next = changed.first, precedes(key(next), key(values)) {
                try body(next)
                changed.removeFirst()
            }
            try body(values)
        }
        for values in changed { try body(values) }
    }

    /// `pairs` in `entity`'s attribute order (a change may also hold attributes a migration
    /// removed since: they are not the entity's now).
    private static func values(of entity: EntityDescription, in pairs: [(String, Value)]) -> [Value] {
        entity.attributes.map { attribute in pairs.first { $0.0 == attribute.name }?.1 ?? .null }
    }
}
