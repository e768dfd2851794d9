import ImporterModel

/// The steps from the entities a store registered to a model's (`importer model diff`, `importer
/// migrate --plan`), entity by entity in the model's order. Entities the store holds and the model
/// does not declare are left as they are (a model may map some of a store's entities only).
public enum ModelDiff {
    public static func steps(from registered: [EntityDescription], to model: Model) -> [MigrationStep] {
        let perEntity = model.entities.flatMap { entity -> [MigrationStep] in
            if let stored = registered.first(where: { $0.name == entity.name }) { return steps(from: stored, to: entity, model: model) }
            guard let old = model.renamedEntities[entity.name], let stored = held(entity, in: registered, model: model) else { return [.addEntity(entity.name)] }
            return [.renameEntity(from: old, to: entity.name)] + steps(from: stored, to: entity, model: model)
        }
        let removed = model.removedEntities.filter { name in registered.contains { $0.name == name } }.map(MigrationStep.removeEntity)
        return removed + ParentKeys.link(perEntity, from: registered, to: model)
    }

    /// The names the model gives that match nothing the store holds (`registered`), a sentence
    /// each: an entity or attribute `renamed-from:` a name the store does not hold (so it is added
    /// as new, and the old one, left out of the model, stays or is removed), a `removed-entities:`
    /// name it neither holds nor removed before (`removed`): nothing is removed. Misspelt, they
    /// would otherwise pass unseen.
    public static func unmatchedNames(from registered: [EntityDescription], removed: [String], to model: Model) -> [String] {
        func holds(_ name: String) -> Bool { registered.contains { $0.name == name } }
        var notes = model.removedEntities.filter { !holds($0) && !removed.contains($0) }.map {
            "removed-entities: the store never held an entity \($0) (misspelt?): nothing to remove"
        }
        for entity in model.entities {
            if let old = model.renamedEntities[entity.name], !holds(entity.name), !holds(old) {
                notes.append("entity \(entity.name): renamed-from: the store holds no entity \(old): \(entity.name) is added as a new entity")
            }
            guard let stored = held(entity, in: registered, model: model) else { continue }
            for attribute in entity.attributes where stored.attribute(named: attribute.name) == nil {
                guard let old = model.evolution(of: attribute.name, in: entity.name)?.renamedFrom, stored.attribute(named: old) == nil else { continue }
                notes.append("\(entity.name).\(attribute.name): renamed-from: \(entity.name) holds no attribute \(old): \(attribute.name) is added as a new attribute")
            }
        }
        return notes
    }

    /// The store's definition of the model's `entity` (under its old name when it is renamed, given the new one).
    static func held(_ entity: EntityDescription, in registered: [EntityDescription], model: Model) -> EntityDescription? {
        if let stored = registered.first(where: { $0.name == entity.name }) { return stored }
        guard let old = model.renamedEntities[entity.name], var stored = registered.first(where: { $0.name == old }) else { return nil }
        stored.name = entity.name
        return stored
    }

    /// The store's name of each of `entity`'s attributes it holds: its own, or the one it is renamed from.
    static func storedNames(_ stored: EntityDescription, _ entity: EntityDescription, model: Model) -> [String: String] {
        var names: [String: String] = [:]
        for attribute in entity.attributes {
            if stored.attribute(named: attribute.name) != nil {
                names[attribute.name] = attribute.name
            } else if let old = model.evolution(of: attribute.name, in: entity.name)?.renamedFrom, stored.attribute(named: old) != nil {
                names[attribute.name] = old
            }
        }
        return names
    }

    /// A stored attribute's name once the migration's renames are applied.
    static func renamed(_ name: String, by storedNames: [String: String]) -> String {
        storedNames.first { $0.value == name }?.key ?? name
    }

    /// What stored records take, as the model's `default:` says (a constant, or an expression).
    static func fill(_ evolution: AttributeEvolution?, type: AttributeType) -> MigrationStep.Fill? {
        evolution?.defaultExpression.map(MigrationStep.Fill.expression) ?? evolution?.defaultValue(for: type).map(MigrationStep.Fill.value)
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
        let storedName = storedNames(stored, entity, model: model)
        for attribute in entity.attributes {
            if let old = storedName[attribute.name], old != attribute.name { steps.append(.renameAttribute(entity: entity.name, from: old, to: attribute.name)) }
        }
        let kept = Set(storedName.values)
        for old in stored.attributes where !kept.contains(old.name) { steps.append(.removeAttribute(entity: entity.name, attribute: old.name)) }
        for attribute in entity.attributes {
            guard let name = storedName[attribute.name], let old = stored.attribute(named: name) else {
                steps.append(.addAttribute(entity: entity.name, attribute: attribute, fill: fill(model.evolution(of: attribute.name, in: entity.name), type: attribute.type)))
                continue
            }
            if old.type != attribute.type {
                steps.append(.retypeAttribute(entity: entity.name, attribute: attribute.name, from: old.type, to: attribute.type,
                                              invalid: invalidValues(model.evolution(of: attribute.name, in: entity.name), type: attribute.type)))
            }
            if old.isOptional != attribute.isOptional {
                let fill = attribute.isOptional ? nil : fill(model.evolution(of: attribute.name, in: entity.name), type: attribute.type)
                steps.append(.changeOptionality(entity: entity.name, attribute: attribute.name, required: !attribute.isOptional, fill: fill))
            }
        }
        let renamedKey = stored.uniqueKey.map { renamed($0, by: storedName) }
        if renamedKey != entity.uniqueKey { steps.append(.changeKey(entity: entity.name, from: stored.uniqueKey, to: entity.uniqueKey)) }
        let renamedIndexes = stored.indexes.map { index in index.map { renamed($0, by: storedName) } }
        for index in renamedIndexes where !entity.indexes.contains(index) { steps.append(.dropIndex(entity: entity.name, columns: index)) }
        for index in entity.indexes where !renamedIndexes.contains(index) { steps.append(.addIndex(entity: entity.name, columns: index)) }
        if steps.isEmpty { steps.append(.changeDefinition(entity.name)) }
        return steps
    }
}
