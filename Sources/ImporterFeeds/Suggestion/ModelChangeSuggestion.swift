import ImporterModel

/// The change a model needs for a feed it already maps (`importer model suggest --model M FEED`,
/// or `--store S`, the model the store was last written with): the feed is sampled as for a first
/// model, then compared field by field with the mapping that reads it. A field the mapping does not
/// read becomes an optional attribute (the suggested name and type) and its field mapping; a mapped
/// field whose values need a wider type than its attribute's (a real in an integer, text in a
/// number) becomes a retype. Everything else stays as the model says; `importer migrate --plan`
/// then shows what the store takes.
public enum ModelChangeSuggestion {
    /// `current` with the changes `suggestion` (of the same feed) calls for, and a line per change;
    /// throws when no mapping of `current` reads the feed's format.
    public static func propose(_ current: Model, from suggestion: ModelSuggestion) throws(ModelError) -> (model: Model, changes: [String]) {
        guard let suggested = suggestion.model.feeds.first,
              let suggestedEntity = suggestion.model.entity(named: suggested.entity) else { return (current, []) }
        let candidates = current.feeds.filter { $0.format == suggested.format && $0.childRecords == nil }
        guard let mapping = candidates.first(where: { $0.records == suggested.records }) ?? candidates.first,
              let mappingIndex = current.feeds.firstIndex(of: mapping),
              let entityIndex = current.entities.firstIndex(where: { $0.name == mapping.entity }) else {
            throw ModelError.invalid("no feed mapping of the model reads \(suggested.format.rawValue) feeds: the feed is not one it maps (suggest a model without --model)")
        }
        var model = current
        var changes: [String] = []
        for field in suggested.fields {
            guard let address = field.field, let type = suggestedEntity.attribute(named: field.attribute)?.type else { continue }
            let entity = model.entities[entityIndex]
            if let mapped = mapping.fields.first(where: { $0.field == address }) {
                guard let held = entity.attribute(named: mapped.attribute), !fits(type, in: held.type),
                      let index = entity.attributeIndex(named: held.name) else { continue }
                model.entities[entityIndex].attributes[index].type = type
                changes.append("retype \(entity.name).\(held.name): \(held.type.rawValue) → \(type.rawValue) (field '\(address)' holds \(type.rawValue) values)")
                continue
            }
            var name = field.attribute
            var suffix = 2
            while entity.attribute(named: name) != nil || entity.derivedAttribute(named: name) != nil {
                name = "\(field.attribute)_\(suffix)"
                suffix += 1
            }
            model.entities[entityIndex].attributes.append(AttributeDescription(name: name, type: type))
            var added = field
            added.attribute = name
            model.feeds[mappingIndex].fields.append(added)
            changes.append("add optional attribute \(entity.name).\(name) (\(type.rawValue)) for field '\(address)'")
        }
        return (model, changes)
    }

    /// Whether values suggested as `type` are stored by an attribute of type `held` as they are.
    static func fits(_ type: AttributeType, in held: AttributeType) -> Bool {
        type == held || held == .text || (held == .real && type == .integer) || (held == .datetime && type == .date)
    }
}
