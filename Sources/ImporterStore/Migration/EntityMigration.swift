import ImporterModel

/// What bringing a store's entity to the model's definition takes, decided without SQL for every
/// backend: nothing, creating it, or adding optional attributes (the only change that cannot lose
/// data). Any other difference is refused with the reason (`StoreError.incompatibleModel`).
public enum EntityMigration: Equatable, Sendable {
    case upToDate
    case create
    case update(adding: [AttributeDescription])

    /// The migration of `entity` given the store's `registered` entities.
    public static func plan(for entity: EntityDescription, registered: [EntityDescription]) throws(StoreError) -> EntityMigration {
        guard let current = registered.first(where: { $0.name == entity.name }) else {
            if let other = registered.first(where: { $0.tableName.lowercased() == entity.tableName.lowercased() }) {
                throw StoreError.incompatibleModel(entity: entity.name, reason: "table '\(entity.tableName)' already holds entity \(other.name)")
            }
            return .create
        }
        return try plan(for: entity, registered: current)
    }

    /// The migration of `entity` from its `registered` definition.
    public static func plan(for entity: EntityDescription, registered: EntityDescription) throws(StoreError) -> EntityMigration {
        if registered == entity { return .upToDate }
        func refuse(_ reason: String) -> StoreError { .incompatibleModel(entity: entity.name, reason: reason) }
        guard registered.tableName == entity.tableName else {
            throw refuse("the store keeps it in table '\(registered.tableName)', the model says '\(entity.tableName)'")
        }
        guard registered.uniqueKey == entity.uniqueKey else {
            throw refuse("the unique key is (\(registered.uniqueKey.joined(separator: ", "))) in the store and (\(entity.uniqueKey.joined(separator: ", "))) in the model")
        }
        for old in registered.attributes {
            guard let new = entity.attribute(named: old.name) else {
                throw refuse("attribute '\(old.name)' is in the store but not in the model (removing it would lose data)")
            }
            guard new.type == old.type else {
                throw refuse("attribute '\(old.name)' is \(old.type.rawValue) in the store and \(new.type.rawValue) in the model")
            }
            guard new.isOptional == old.isOptional else {
                throw refuse("attribute '\(old.name)' is \(old.isOptional ? "optional" : "required") in the store and \(new.isOptional ? "optional" : "required") in the model")
            }
        }
        let added = entity.attributes.filter { registered.attribute(named: $0.name) == nil }
        for attribute in added where !attribute.isOptional {
            throw refuse("new attribute '\(attribute.name)' must be optional: existing records have no value for it")
        }
        return .update(adding: added)
    }
}
