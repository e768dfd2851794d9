import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// A cursor over one entity's change rows in a transaction range.
struct ChangeCursor {
    let entity: EntityDescription
    let statement: Statement
    private(set) var currentTransaction: Int64?
    private let keyIndices: [Int]
    private let tombstoneIndices: [Int]

    /// A cursor over the change rows with ids in `changeIDs` (none when nil).
    /// `columns`: the change table's own column names (the store's layout).
    init(connection: Connection, entity: EntityDescription, columns: ChangeColumns, changeIDs: ClosedRange<Int64>?) throws {
        self.entity = entity
        let schema = EntitySchema(entity: entity, columns: columns)
        let names = entity.attributes.map { SQLIdentifier.quoted($0.name) }
        let olds = entity.attributes.map { schema.old($0.name) }
        statement = try connection.prepare("""
            SELECT \(schema.transactionNumber), \(schema.recordID), \(schema.type), \(schema.changed), \((names + olds).joined(separator: ", "))
            FROM \(schema.changeTable) WHERE \(schema.changeID) BETWEEN ?1 AND ?2 ORDER BY \(schema.changeID)
            """)
        statement.bind(changeIDs?.lowerBound ?? 1, at: 1)
        statement.bind(changeIDs?.upperBound ?? 0, at: 2)
        keyIndices = entity.keyIndices
        tombstoneIndices = entity.tombstoneIndices
        try advance()
    }

    mutating func advance() throws {
        currentTransaction = try statement.step() ? statement.int64(at: 0) : nil
    }

    func change() -> Change {
        let attributes = entity.attributes
        let values = attributes.indices.map { (attributes[$0].name, statement.value(at: Int32(4 + $0))) }
        let type = ChangeType(rawValue: statement.string(at: 2) ?? "") ?? .update
        var changed: [AttributeChange] = []
        if type == .update {
            let names = Set((statement.string(at: 3) ?? "").split(separator: ",").map(String.init))
            for (index, attribute) in attributes.enumerated() where names.contains(attribute.name) {
                changed.append(AttributeChange(attribute: attribute.name,
                                               old: statement.value(at: Int32(4 + attributes.count + index)),
                                               new: values[index].1))
            }
        }
        return Change(
            transactionNumber: statement.int64(at: 0), entity: entity.name, recordID: statement.int64(at: 1), type: type,
            key: keyIndices.map { values[$0] }, changed: changed, values: values,
            tombstone: type == .delete ? tombstoneIndices.map { values[$0] } : [])
    }
}
