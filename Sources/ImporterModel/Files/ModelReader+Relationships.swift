import Yams

extension ModelReader {
    /// An entity's `relationships:`, each `{name, entity, records, key, delete}`; `key` is a list
    /// of the child's own key attributes or the word `position`.
    mutating func relationships(of node: Node, _ path: String) -> [Relationship] {
        guard let entity = node.mapping, let parent = entity["name"]?.string, let listNode = entity["relationships"] else { return [] }
        guard let items = listNode.sequence else {
            problem(listNode, "\(path).relationships", "expected a list")
            return []
        }
        return items.enumerated().compactMap { index, item -> Relationship? in
            let itemPath = "\(path).relationships[\(index)]"
            guard let fields = mapping(item, itemPath, allowed: ["name", "entity", "records", "key", "delete", "doc"]),
                  let name = string(fields, "name", itemPath, required: true, in: item),
                  let child = string(fields, "entity", itemPath, required: true, in: item),
                  let records = string(fields, "records", itemPath, required: true, in: item) else { return nil }
            let key: Relationship.ChildKey
            if fields["key"]?.string == "position" {
                key = .position
            } else if let names = strings(fields, "key", itemPath), !names.isEmpty {
                key = .attributes(names)
            } else {
                problem(item, itemPath, "missing 'key': the child's own key attributes, or 'position' for children identified by their place")
                return nil
            }
            let rule: Relationship.DeleteRule? = fields["delete"] == nil ? .cascade : enumeration(fields, "delete", itemPath, required: false, in: item)
            return Relationship(name: name, parent: parent, child: child, records: records, key: key, deleteRule: rule ?? .cascade)
        }
    }

    /// One item of a feed mapping's `children:`: `{relationship, fields}`.
    mutating func childMapping(_ item: Node, _ itemPath: String, feed name: String) -> ChildMapping? {
        guard let fields = mapping(item, itemPath, allowed: ["relationship", "fields", "children"]),
              let relationship = string(fields, "relationship", itemPath, required: true, in: item) else { return nil }
        let mappings = list(fields, "fields", itemPath).enumerated().compactMap { index, field in
            fieldMapping(field, "\(itemPath).fields[\(index)]", feed: name)
        }
        let nested = list(fields, "children", itemPath).enumerated().compactMap { index, child in
            childMapping(child, "\(itemPath).children[\(index)]", feed: name)
        }
        return ChildMapping(relationship: relationship, fields: mappings, children: nested)
    }
}
