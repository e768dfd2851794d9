import ImporterModel
import ImporterStore

/// Counts, over one import's update changes of an entity (a range of change ids), how many records
/// each non-key attribute changed on (one query over the range), with two examples of the change
/// for each attribute counted above a threshold.
public struct UpdatedAttributesSQL {
    public let entity: EntityDescription
    public let dialect: any SQLDialect
    public let columns: ChangeColumns

    public init(entity: EntityDescription, dialect: any SQLDialect, columns: ChangeColumns = .current) {
        self.entity = entity
        self.dialect = dialect
        self.columns = columns
    }

    private var counted: [AttributeDescription] { entity.attributes.filter { !entity.uniqueKey.contains($0.name) } }

    /// The attributes changed by the updates `changeIDs` (those changed on no record left out);
    /// examples for those changed on more than `examplesAbove` records.
    public func count(changeIDs: ClosedRange<Int64>?, examplesAbove threshold: Int, on executor: any SQLExecutor) throws -> [UpdatedAttribute] {
        guard let changeIDs, !counted.isEmpty else { return [] }
        let q = dialect.quoted
        let changed = q(columns.changed)
        let sums = counted.map { "sum(CASE WHEN \(dialect.list(changed, contains: $0.name)) THEN 1 ELSE 0 END)" }
        let range = "\(q(columns.changeID)) BETWEEN \(dialect.parameter(1)) AND \(dialect.parameter(2)) AND \(q(columns.type)) = 'update'"
        let table = q("importer_change_" + entity.tableName)
        let bounds: [Value] = [.integer(changeIDs.lowerBound), .integer(changeIDs.upperBound)]
        let row = try executor.rows("SELECT \(sums.joined(separator: ", ")) FROM \(table) WHERE \(range)", bounds).first ?? []
        var result: [UpdatedAttribute] = []
        for (attribute, value) in zip(counted, row) {
            guard let count = value.integerValue, count > 0 else { continue }
            var item = UpdatedAttribute(entity: entity.name, attribute: attribute.name, updated: Int(count))
            if count > threshold {
                let examples = try executor.rows("""
                    SELECT \(q(columns.old(attribute.name))), \(q(attribute.name)) FROM \(table)
                    WHERE \(range) AND \(dialect.list(changed, contains: attribute.name)) ORDER BY \(q(columns.changeID)) LIMIT 2
                    """, bounds)
                item.examples = examples.compactMap { $0.count == 2 ? UpdatedAttribute.Example(old: $0[0], new: $0[1]) : nil }
            }
            result.append(item)
        }
        return result
    }
}
