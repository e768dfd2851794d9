import ImporterModel
import ImporterStore

/// The guards over what an import did to each attribute: the null storm (`--max-nulled`) and the
/// mass update (`--max-updated`).
extension ImportSession {
    /// The null-storm and mass-update guards over what the import did to each attribute.
    func storms(_ entities: [EntityDescription], counts: [(String, ChangeCounts)], of transaction: any ImportTransaction,
                        in tx: StoreWriteTransaction) throws -> [Refusal] {
        var refusals: [Refusal] = []
        for entity in entities {
            let count = counts.first { $0.0 == entity.name }?.1 ?? ChangeCounts()
            // The records stored before the run are at least those it updated or found unchanged:
            // under the bound for these, an attribute is under it for all (and nothing is counted).
            let lower = options.maxUpdated.limit(stored: count.updated + count.unchanged)
            // With no more updates than that, no attribute can be over it: its changes go uncounted.
            let changes = try transaction.attributeChanges(entity, examplesAbove: count.updated > max(lower, 1) ? lower : nil)
            refusals += Self.nullStorms(changes.nulled, bound: options.maxNulled)
            guard changes.updated.contains(where: { $0.updated > lower && $0.updated > 1 }) else { continue }
            let held = try tx.records.recordCount(of: entity) - count.inserted + count.deleted
            refusals += Self.massUpdates(changes.updated, held: held, bound: options.maxUpdated)
        }
        return refusals
    }

    /// The null-storm guard: why the run must not commit, for each attribute it set to null on more
    /// records than `bound` allows out of those holding a value (one record is never a storm).
    static func nullStorms(_ nulled: [NulledAttribute], bound: DeleteBound) -> [Refusal] {
        nulled.compactMap { item in
            let limit = bound.limit(stored: item.holding)
            guard item.nulled > limit, item.nulled > 1 else { return nil }
            let percent = Int((Double(item.nulled) * 100 / Double(max(item.holding, 1))).rounded())
            return .nullStorm(entity: item.entity, attribute: item.attribute, count: item.nulled, holding: item.holding, percent: percent, bound: bound, limit: limit)
        }
    }

    /// The mass-update guard: why the run must not commit, for each attribute it changed on more of
    /// the `held` records stored before it than `bound` allows (one record is never a mass update).
    static func massUpdates(_ updated: [UpdatedAttribute], held: Int, bound: DeleteBound) -> [Refusal] {
        let limit = bound.limit(stored: held)
        return updated.compactMap { item in
            guard item.updated > limit, item.updated > 1 else { return nil }
            let percent = Int((Double(item.updated) * 100 / Double(max(held, 1))).rounded())
            return .massUpdate(entity: item.entity, attribute: item.attribute, count: item.updated, held: held, percent: percent, bound: bound,
                               limit: limit, examples: item.examples.map { "\($0.old) → \($0.new)" })
        }
    }
}
