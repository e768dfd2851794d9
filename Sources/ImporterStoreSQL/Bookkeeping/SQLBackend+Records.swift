import ImporterModel
import ImporterStore

/// What the stages read of the records themselves, beyond streaming them.
extension SQLBackend {
    package func recordCount(of entity: EntityDescription) throws(StoreError) -> Int {
        try mapErrors { Int(try executor.integer("SELECT count(*) FROM \(tables(of: entity).table)")) }
    }

    package func extreme(_ which: Extreme, of attribute: AttributeDescription, in entity: EntityDescription) throws(StoreError) -> Value {
        try mapErrors {
            guard try tableExists(named: entity.tableName) else { return .null }
            let column = dialect.quoted(attribute.name)
            return try executor.scalar("SELECT \(which.rawValue)(\(column)) FROM \(tables(of: entity).table)") ?? .null
        }
    }
}
