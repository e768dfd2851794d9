import Yams

/// An entity of a model file: its attributes (with how each came to be: `renamed-from:`,
/// `default:`, `retype-invalid:`), derived attributes, key, tombstone, drift and indexes.
extension ModelReader {
    /// `default: {expression: "…"}`: the expression each stored record's value is computed from.
    private mutating func defaultExpression(_ node: Node, _ path: String) -> Expression? {
        guard let fields = mapping(node, path, allowed: ["expression"]), let text = string(fields, "expression", path, required: true, in: node) else { return nil }
        do {
            return try ExpressionParser.parse(text)
        } catch {
            problem(fields["expression"], "\(path).expression", "\(error)")
            return nil
        }
    }

    mutating func entity(_ node: Node, _ path: String) -> EntityDescription? {
        guard let fields = mapping(node, path, allowed: ["name", "renamed-from", "table", "key", "tombstone", "drift", "attributes", "derived", "relationships", "indexes", "doc"]),
              let name = string(fields, "name", path, required: true, in: node) else { return nil }
        if let old = string(fields, "renamed-from", path, in: node) { renamedEntities[name] = old }
        if let mark = node.mark { marks["entity \(name)"] = mark }
        let attributes = list(fields, "attributes", path).enumerated().compactMap { index, item -> AttributeDescription? in
            let itemPath = "\(path).attributes[\(index)]"
            guard let attribute = mapping(item, itemPath, allowed: ["name", "type", "required", "doc", "renamed-from", "default", "retype-invalid"]),
                  let attributeName = string(attribute, "name", itemPath, required: true, in: item) else { return nil }
            if let mark = item.mark { marks["entity \(name) \(attributeName)"] = mark }
            let renamedFrom = string(attribute, "renamed-from", itemPath, in: item), fill = attribute["default"].flatMap { $0.scalar != nil ? $0.string : nil }
            let computed = attribute["default"].flatMap { $0.mapping != nil ? defaultExpression($0, "\(itemPath).default") : nil }
            let invalid: AttributeEvolution.InvalidValues? = enumeration(attribute, "retype-invalid", itemPath, required: false, in: item)
            if renamedFrom != nil || fill != nil || computed != nil || invalid != nil {
                var evolution = AttributeEvolution(entity: name, attribute: attributeName, renamedFrom: renamedFrom, defaultText: fill)
                evolution.defaultExpression = computed
                evolution.invalid = invalid
                evolutions.append(evolution)
            }
            let type: AttributeType? = enumeration(attribute, "type", itemPath, required: true, in: item)
            return type.map {
                AttributeDescription(name: attributeName, type: $0, isOptional: !bool(attribute, "required", itemPath),
                                     documentation: string(attribute, "doc", itemPath, in: item))
            }
        }
        let derived = list(fields, "derived", path).enumerated().compactMap { index, item -> DerivedAttribute? in
            let itemPath = "\(path).derived[\(index)]"
            guard let attribute = mapping(item, itemPath, allowed: ["name", "type", "expression", "doc"]),
                  let attributeName = string(attribute, "name", itemPath, required: true, in: item),
                  let text = string(attribute, "expression", itemPath, required: true, in: item) else { return nil }
            if let mark = item.mark { marks["entity \(name) \(attributeName)"] = mark }
            let type: AttributeType? = enumeration(attribute, "type", itemPath, required: true, in: item)
            do {
                let expression = try ExpressionParser.parse(text)
                return type.map { DerivedAttribute(name: attributeName, type: $0, expression: expression, documentation: string(attribute, "doc", itemPath, in: item)) }
            } catch {
                problem(attribute["expression"], "\(itemPath).expression", "\(error)")
                return nil
            }
        }
        let key = strings(fields, "key", path) ?? []
        if fields["key"] == nil { problem(node, path, "missing 'key' (the unique key's attributes)") }
        var entity = EntityDescription(name: name, tableName: string(fields, "table", path, in: node) ?? name.lowercased(),
                                       attributes: attributes, uniqueKey: key, tombstoneAttributes: strings(fields, "tombstone", path) ?? key,
                                       derivedAttributes: derived, drift: fields["drift"].flatMap { drift($0, "\(path).drift") })
        // `indexes: [[place], [time, mag]]`: each index the attributes it orders records by.
        entity.indexes = list(fields, "indexes", path).enumerated().compactMap { index, item in
            guard let columns = item.sequence?.compactMap(\.string), !columns.isEmpty else {
                problem(item, "\(path).indexes[\(index)]", "expected a list of attributes, e.g. [place, time]")
                return nil
            }
            return columns
        }
        return entity
    }

    /// `drift: {attribute: date, tolerance: 1s, agree: [energy]}`.
    private mutating func drift(_ node: Node, _ path: String) -> KeyDrift? {
        guard let fields = mapping(node, path, allowed: ["attribute", "tolerance", "agree", "on"]),
              let attribute = string(fields, "attribute", path, required: true, in: node),
              let text = string(fields, "tolerance", path, required: true, in: node) else { return nil }
        guard let tolerance = KeyDrift.tolerance(parsing: text) else {
            problem(fields["tolerance"], "\(path).tolerance", "'\(text)' is not a tolerance (a duration such as 1s, 2m, 1h, 1d, or a number)")
            return nil
        }
        let on: KeyDrift.When? = fields["on"] == nil ? .sync : enumeration(fields, "on", path, required: false, in: node)
        return KeyDrift(attribute: attribute, tolerance: tolerance, agree: strings(fields, "agree", path) ?? [], on: on ?? .sync)
    }
}
