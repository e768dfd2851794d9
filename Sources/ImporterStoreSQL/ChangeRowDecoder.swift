import ImporterModel
import ImporterStore

/// Reads one entity's change rows as both backends select them (`EntityTables.changeRowColumns`):
/// transaction number, record id, type, changed names, the attributes' values, their old values.
package struct ChangeRowDecoder {
    package let entity: EntityDescription
    private let keyIndices: [Int]
    private let tombstoneIndices: [Int]

    package init(entity: EntityDescription) {
        self.entity = entity
        keyIndices = entity.keyIndices
        tombstoneIndices = entity.tombstoneIndices
    }

    /// The change of a row whose `i`th selected column is `column(i)`.
    package func change(_ column: (Int) -> Value) -> Change {
        let attributes = entity.attributes
        let values = attributes.indices.map { (attributes[$0].name, column(4 + $0)) }
        let type = ChangeType(rawValue: column(2).stringValue ?? "") ?? .update
        var changed: [AttributeChange] = []
        if type == .update {
            let names = Set((column(3).stringValue ?? "").split(separator: ",").map(String.init))
            for (index, attribute) in attributes.enumerated() where names.contains(attribute.name) {
                changed.append(AttributeChange(attribute: attribute.name, old: column(4 + attributes.count + index), new: values[index].1))
            }
        }
        return Change(transactionNumber: column(0).integerValue ?? 0, entity: entity.name, recordID: column(1).integerValue ?? 0, type: type,
                      key: keyIndices.map { values[$0] }, changed: changed, values: values,
                      tombstone: type == .delete ? tombstoneIndices.map { values[$0] } : [])
    }
}

extension EntityTables {
    /// The columns of a change row that `ChangeRowDecoder` reads, in its order.
    package var changeRowColumns: String {
        "\(changeHead), \(changed), \((names + entity.attributes.map { old($0.name) }).joined(separator: ", "))"
    }
}
