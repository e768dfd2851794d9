import ImporterModel

/// Child entities suggested for the arrays of objects inside a parent's records (a station's
/// `vehicle_types_available`), or an XML record's repeated elements with structure (IANA's
/// `<xref>`s), and for those inside the children in turn (children of children): one entity
/// each, keyed by the parent's key then its own: a field unique within every sampled parent's
/// array (an identifier, or text), else the element's place (`key: position`, flagged in the notes).
enum ChildSuggestion {
    struct Parts {
        var entities: [EntityDescription] = []
        var relationships: [Relationship] = []
        var notes: [String] = []
        var comments: [String] = []
    }

    /// The children of `parent`'s records in `samples`; adds their `children` to its mapping.
    static func suggest(for parent: inout EntitySuggestion, samples: [FeedSample], paths: [String]) -> Parts {
        var names = Set([parent.entity.name])
        var tables = Set([parent.entity.tableName])
        return suggest(for: &parent, samples: samples, paths: paths, names: &names, tables: &tables)
    }

    /// The children of `parent`'s records, then theirs; `names` and `tables`: those taken.
    private static func suggest(for parent: inout EntitySuggestion, samples: [FeedSample], paths: [String],
                                names: inout Set<String>, tables: inout Set<String>) -> Parts {
        var parts = Parts()
        for name in orderedNames(samples) {
            let perParent = samples.flatMap { $0.children.first { $0.name == name }?.parents ?? [] }.filter { !$0.recordFields.isEmpty }
            guard var child = try? ModelSuggester.suggestEntity(perParent, paths: paths, positionKey: true) else { continue }
            child.entity.name = SampleGroup.unique(child.entity.name, in: &names, separator: "")
            child.entity.tableName = SampleGroup.unique(child.entity.tableName, in: &tables, separator: "_")
            var (relationship, mapping, comments) = attach(&child, named: name, records: perParent.first?.records, to: parent.entity)
            let grandchildren = suggest(for: &child, samples: perParent, paths: paths, names: &names, tables: &tables)
            mapping.children = child.mapping.children
            parent.mapping.children.append(mapping)
            parts.entities.append(child.entity)
            parts.relationships.append(relationship)
            parts.comments += comments + grandchildren.comments
            let records = perParent.reduce(0) { $0 + $1.recordFields.count }
            let what = perParent.first?.format == .xml ? "element(s)" : "object(s)"
            parts.notes.append("\(child.entity.name): a child entity, the \(records) \(what) of '\(name)' in \(perParent.count) sampled \(parent.entity.name) record(s), "
                + "keyed by (\(child.entity.uniqueKey.joined(separator: ", "))); each run replaces a \(parent.entity.name)'s children by its list")
            if relationship.key == .position {
                parts.notes.append("WARNING: \(child.entity.name): no identifier is unique within each \(parent.entity.name)'s '\(name)' in the sample, so its children are keyed "
                    + "by their place (key: position): a re-ordered list updates every child that moved. Name a key if the feed has one.")
            }
            parts.notes += child.notes.filter { !$0.hasPrefix("WARNING: no field") }.map { "\(child.entity.name): " + $0 }
            (parts.entities, parts.relationships, parts.notes) = (parts.entities + grandchildren.entities, parts.relationships + grandchildren.relationships,
                                                                  parts.notes + grandchildren.notes)
        }
        return parts
    }

    /// The child array names of the samples, in the order first met.
    private static func orderedNames(_ samples: [FeedSample]) -> [String] {
        var names: [String] = []
        for sample in samples { for child in sample.children where !names.contains(child.name) { names.append(child.name) } }
        return names
    }

    /// Makes `child` the child of `parent`: the parent's key attributes first (a child field of
    /// the same name, such as each QuakeML level's `publicID`, is renamed after the child: its
    /// values are the child's own), its own key kept when it names an identifier or text, else
    /// `position`. Returns the relationship, the parent mapping's `children` entry and its comments.
    /// `records`: the list's path in a parent record (the JSON member's pointer by default).
    private static func attach(_ child: inout EntitySuggestion, named name: String, records: String?, to parent: EntityDescription)
        -> (Relationship, ChildMapping, [String]) {
        let parentKey = parent.uniqueKey.compactMap(parent.attribute(named:)).map { AttributeDescription(name: $0.name, type: $0.type, isOptional: false) }
        let taken = Set(parentKey.map(\.name))
        let prefix = NameWords.snake([child.entity.name]) + "_"
        for index in child.mapping.fields.indices where taken.contains(child.mapping.fields[index].attribute) { child.mapping.fields[index].attribute.insert(contentsOf: prefix, at: child.mapping.fields[index].attribute.startIndex) }
        for index in child.entity.attributes.indices where taken.contains(child.entity.attributes[index].name) { child.entity.attributes[index].name = prefix + child.entity.attributes[index].name }
        child.entity.uniqueKey = child.entity.uniqueKey.map { taken.contains($0) ? prefix + $0 : $0 }
        let kept = Array(child.mapping.fields.indices)
        var own = child.entity.uniqueKey.filter { !taken.contains($0) }
        let identifying = own.allSatisfy { key in
            let last = NameWords.tokens([key]).last ?? ""
            return ["id", "uuid", "guid", "key", "code", "identifier"].contains(last) || child.entity.attribute(named: key)?.type == .text
        }
        var attributes = child.entity.attributes.filter { !taken.contains($0.name) }.map { attribute in
            var attribute = attribute
            attribute.isOptional = true
            return attribute
        }
        var fields = kept.map { child.mapping.fields[$0] }
        let key: Relationship.ChildKey
        if own.isEmpty || !identifying || child.notes.contains(where: { $0.hasPrefix("WARNING: no field") }) {
            let position = Relationship.positionAttribute
            if let clash = attributes.firstIndex(where: { $0.name == position }) {
                attributes[clash].name = position + "_value"
                for index in fields.indices where fields[index].attribute == position { fields[index].attribute = position + "_value" }
            }
            attributes.insert(AttributeDescription(name: position, type: .integer, isOptional: false), at: 0)
            own = [position]
            key = .position
        } else {
            for index in attributes.indices where own.contains(attributes[index].name) { attributes[index].isOptional = false }
            key = .attributes(own)
        }
        child.entity.attributes = parentKey + attributes
        child.entity.uniqueKey = parent.uniqueKey + own
        child.entity.tombstoneAttributes = child.entity.uniqueKey
        let relationship = Relationship(name: NameWords.snake([name]), parent: parent.name, child: child.entity.name,
                                        records: records ?? JSONRecordFlattener.pointer([name]), key: key)
        return (relationship, ChildMapping(relationship: relationship.name, fields: fields), kept.map { child.comments[$0] })
    }
}
