import ImporterModel
import ImporterStore

/// Counts, over one import's update changes of an entity (a range of change ids), how many
/// records each optional attribute went from a value to null on, and how many records hold a
/// value (one query over the range; a scan of the entity table only when something was nulled).
public struct NulledAttributesSQL {
    public let entity: EntityDescription
    public let dialect: any SQLDialect
    /// The store's change-table layout (an import always writes the current one).
    public let columns: ChangeColumns

    public init(entity: EntityDescription, dialect: any SQLDialect, columns: ChangeColumns = .current) {
        self.entity = entity
        self.dialect = dialect
        self.columns = columns
    }

    private var optional: [AttributeDescription] { entity.attributes.filter(\.isOptional) }

    /// `nulled` for the changes `changeIDs`, `holding` counted now.
    public func count(changeIDs: ClosedRange<Int64>?, on executor: any SQLExecutor) throws -> [NulledAttribute] {
        guard let changeIDs, !optional.isEmpty else { return [] }
        let q = dialect.quoted
        let sums = optional.map { "sum(CASE WHEN \(q($0.name)) IS NULL AND \(q(columns.old($0.name))) IS NOT NULL THEN 1 ELSE 0 END)" }
        let changes = "\(q("importer_change_" + entity.tableName))"
        let nulledRow = try executor.rows("""
            SELECT \(sums.joined(separator: ", ")) FROM \(changes)
            WHERE \(q(columns.changeID)) BETWEEN \(dialect.parameter(1)) AND \(dialect.parameter(2)) AND \(q(columns.type)) = 'update'
            """, [.integer(changeIDs.lowerBound), .integer(changeIDs.upperBound)]).first ?? []
        let nulled = zip(optional, nulledRow).compactMap { attribute, value -> (AttributeDescription, Int)? in
            guard let count = value.integerValue, count > 0 else { return nil }
            return (attribute, Int(count))
        }
        guard !nulled.isEmpty else { return [] }
        let counts = try executor.rows("SELECT \(nulled.map { "count(\(q($0.0.name)))" }.joined(separator: ", ")) FROM \(q(entity.tableName))", []).first ?? []
        return zip(nulled, counts).map { pair, held in
            NulledAttribute(entity: entity.name, attribute: pair.0.name, nulled: pair.1, holding: pair.1 + Int(held.integerValue ?? 0))
        }
    }
}
