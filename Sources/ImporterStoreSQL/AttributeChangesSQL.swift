import ImporterModel
import ImporterStore

/// Counts, over one import's update changes of an entity (a range of change ids), in one query over
/// the range: how many records each optional attribute went from a value to null on, and how many
/// records each non-key attribute changed on. Then, only when needed: how many records hold a value
/// of a nulled attribute (a scan of the entity table), and two examples of the change of each
/// attribute changed on more records than a threshold.
package struct AttributeChangesSQL {
    package let entity: EntityDescription
    package let dialect: any SQLDialect
    /// The store's change-table layout (an import always writes the current one).
    package let columns: ChangeColumns

    package init(entity: EntityDescription, dialect: any SQLDialect, columns: ChangeColumns = .current) {
        self.entity = entity
        self.dialect = dialect
        self.columns = columns
    }

    private var optional: [AttributeDescription] { entity.attributes.filter(\.isOptional) }
    private var nonKey: [AttributeDescription] { entity.attributes.filter { !entity.uniqueKey.contains($0.name) } }

    /// The changes `changeIDs` made; examples for attributes changed on more than `examplesAbove`
    /// records (changed attributes not counted at all when nil: a caller that knows no attribute
    /// can be over its bound spares the scan its string matches); `holding` counted now.
    package func count(changeIDs: ClosedRange<Int64>?, examplesAbove threshold: Int?, on executor: any SQLExecutor) throws -> AttributeChanges {
        let nonKey = threshold == nil ? [] : self.nonKey
        guard let changeIDs, !nonKey.isEmpty || !optional.isEmpty else { return AttributeChanges() }
        let q = dialect.quoted
        let changed = q(columns.changed)
        let sums = optional.map { "sum(CASE WHEN \(q($0.name)) IS NULL AND \(q(columns.old($0.name))) IS NOT NULL THEN 1 ELSE 0 END)" }
            + nonKey.map { "sum(CASE WHEN \(dialect.list(changed, contains: $0.name)) THEN 1 ELSE 0 END)" }
        let range = "\(q(columns.changeID)) BETWEEN \(dialect.parameter(1)) AND \(dialect.parameter(2)) AND \(q(columns.type)) = 'update'"
        let table = q("importer_change_" + entity.tableName)
        let bounds: [Value] = [.integer(changeIDs.lowerBound), .integer(changeIDs.upperBound)]
        let row = try executor.rows("SELECT \(sums.joined(separator: ", ")) FROM \(table) WHERE \(range)", bounds).first ?? []
        guard row.count == sums.count else { return AttributeChanges() }
        let nulledCounts = Array(row.prefix(optional.count)), changedCounts = Array(row.dropFirst(optional.count))
        var result = AttributeChanges(nulled: try nulled(nulledCounts, on: executor))
        for (attribute, value) in zip(nonKey, changedCounts) {
            guard let count = value.integerValue, count > 0 else { continue }
            var item = UpdatedAttribute(entity: entity.name, attribute: attribute.name, updated: Int(count))
            if let threshold, count > threshold {
                let examples = try executor.rows("""
                    SELECT \(q(columns.old(attribute.name))), \(q(attribute.name)) FROM \(table)
                    WHERE \(range) AND \(dialect.list(changed, contains: attribute.name)) ORDER BY \(q(columns.changeID)) LIMIT 2
                    """, bounds)
                item.examples = examples.compactMap { $0.count == 2 ? UpdatedAttribute.Example(old: $0[0], new: $0[1]) : nil }
            }
            result.updated.append(item)
        }
        return result
    }

    /// The nulled attributes of the counts (one per optional attribute), with the records holding a
    /// value counted now (a scan only when something was nulled).
    private func nulled(_ counts: [Value], on executor: any SQLExecutor) throws -> [NulledAttribute] {
        let q = dialect.quoted
        let nulled = zip(optional, counts).compactMap { attribute, value -> (AttributeDescription, Int)? in
            guard let count = value.integerValue, count > 0 else { return nil }
            return (attribute, Int(count))
        }
        guard !nulled.isEmpty else { return [] }
        let held = try executor.rows("SELECT \(nulled.map { "count(\(q($0.0.name)))" }.joined(separator: ", ")) FROM \(q(entity.tableName))", []).first ?? []
        return zip(nulled, held).map { pair, held in
            NulledAttribute(entity: entity.name, attribute: pair.0.name, nulled: pair.1, holding: pair.1 + Int(held.integerValue ?? 0))
        }
    }
}
