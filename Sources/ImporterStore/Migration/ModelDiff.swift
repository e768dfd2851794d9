import ImporterModel

/// The steps from the entities a store registered to a model's (`importer model diff`, `importer
/// migrate --plan`), entity by entity in the model's order. Entities the store holds and the model
/// does not declare are left as they are (a model may map some of a store's entities only).
public enum ModelDiff {
    public static func steps(from registered: [EntityDescription], to model: Model) -> [MigrationStep] {
        model.entities.flatMap { entity -> [MigrationStep] in
            if let stored = registered.first(where: { $0.name == entity.name }) { return steps(from: stored, to: entity, model: model) }
            guard let old = model.renamedEntities[entity.name], var stored = registered.first(where: { $0.name == old }) else { return [.addEntity(entity.name)] }
            stored.name = entity.name
            return [.renameEntity(from: old, to: entity.name)] + steps(from: stored, to: entity, model: model)
        }
    }

    /// What a retype does with values that do not convert, as the model's `retype-invalid:` says.
    static func invalidValues(_ evolution: AttributeEvolution?, type: AttributeType) -> MigrationStep.InvalidValues {
        switch evolution?.invalid {
        case .null?: .null
        case .default?: evolution?.defaultValue(for: type).map(MigrationStep.InvalidValues.value) ?? .refuse
        case nil: .refuse
        }
    }

    /// The steps of one entity the store holds.
    static func steps(from stored: EntityDescription, to entity: EntityDescription, model: Model) -> [MigrationStep] {
        guard stored != entity else { return [] }
        var steps: [MigrationStep] = []
        if stored.tableName != entity.tableName { steps.append(.changeTable(entity: entity.name, from: stored.tableName, to: entity.tableName)) }
        // The store's name of each model attribute: its own, or the one it is renamed from.
        var storedName: [String: String] = [:]
        for attribute in entity.attributes {
            if stored.attribute(named: attribute.name) != nil {
                storedName[attribute.name] = attribute.name
            } else if let old = model.evolution(of: attribute.name, in: entity.name)?.renamedFrom, stored.attribute(named: old) != nil {
                storedName[attribute.name] = old
                steps.append(.renameAttribute(entity: entity.name, from: old, to: attribute.name))
            }
        }
        let kept = Set(storedName.values)
        for old in stored.attributes where !kept.contains(old.name) { steps.append(.removeAttribute(entity: entity.name, attribute: old.name)) }
        for attribute in entity.attributes {
            guard let name = storedName[attribute.name], let old = stored.attribute(named: name) else {
                let fill = model.evolution(of: attribute.name, in: entity.name)?.defaultValue(for: attribute.type)
                steps.append(.addAttribute(entity: entity.name, attribute: attribute, fill: fill))
                continue
            }
            if old.type != attribute.type {
                steps.append(.retypeAttribute(entity: entity.name, attribute: attribute.name, from: old.type, to: attribute.type,
                                              invalid: invalidValues(model.evolution(of: attribute.name, in: entity.name), type: attribute.type)))
            }
            if old.isOptional != attribute.isOptional {
                let fill = attribute.isOptional ? nil : model.evolution(of: attribute.name, in: entity.name)?.defaultValue(for: attribute.type)
                steps.append(.changeOptionality(entity: entity.name, attribute: attribute.name, required: !attribute.isOptional, fill: fill))
            }
        }
        let renamedKey = stored.uniqueKey.map { name in storedName.first { $0.value == name }?.key ?? name }
        if renamedKey != entity.uniqueKey { steps.append(.changeKey(entity: entity.name, from: stored.uniqueKey, to: entity.uniqueKey)) }
        let renamedIndexes = stored.indexes.map { index in index.map { name in storedName.first { $0.value == name }?.key ?? name } }
        for index in renamedIndexes where !entity.indexes.contains(index) { steps.append(.dropIndex(entity: entity.name, columns: index)) }
        for index in entity.indexes where !renamedIndexes.contains(index) { steps.append(.addIndex(entity: entity.name, columns: index)) }
        if steps.isEmpty { steps.append(.changeDefinition(entity.name)) }
        return steps
    }
}
