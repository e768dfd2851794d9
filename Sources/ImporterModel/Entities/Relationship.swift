/// A to-many relationship, as Core Data's: records of a child entity found in an array of each
/// parent record (`records`, a JSON pointer or an XML path into the parent record).
///
/// Invariants (checked by `problems`): the child's unique key is the parent's key attributes (same
/// names and types) followed by its own (`key`), so a child belongs to one parent by its key; a
/// child entity is the child of one relationship (it may have children of its own). The parent's
/// array is a snapshot of its children: a run that reads a parent with its array deletes the
/// stored children the array no longer holds; a parent whose array is absent keeps them.
public struct Relationship: Sendable, Equatable {
    /// What identifies a child among its parent's: its own attributes, or its place in the array.
    public enum ChildKey: Sendable, Equatable {
        case attributes([String])
        /// The 0-based place in the parent's array, stored in the integer attribute `position`:
        /// a re-ordered array then updates every child that moved.
        case position
    }

    /// What a parent's delete does to its children.
    public enum DeleteRule: String, Sendable, Equatable, CaseIterable {
        /// The children are deleted too, each a delete change with its tombstone.
        case cascade
        /// The children are kept as they are, holding the key of the parent they belonged to.
        case nullify
        /// The run is refused (65) when it would delete a parent that has children.
        case deny
    }

    /// The attribute a `position` key stores the place in.
    public static let positionAttribute = "position"

    public var name: String
    public var parent: String
    public var child: String
    public var records: String
    public var key: ChildKey
    public var deleteRule: DeleteRule

    public init(name: String, parent: String, child: String, records: String, key: ChildKey, deleteRule: DeleteRule = .cascade) {
        self.name = name
        self.parent = parent
        self.child = child
        self.records = records
        self.key = key
        self.deleteRule = deleteRule
    }

    /// The child's own key attributes, after its parent's.
    public var ownKey: [String] {
        switch key {
        case .attributes(let names): names
        case .position: [Self.positionAttribute]
        }
    }

    /// Every problem with this relationship of `parent`, given the model's entities.
    public func problems(parent: EntityDescription, entities: [EntityDescription]) -> [String] {
        let subject = "entity \(parent.name): relationship '\(name)'"
        guard let child = entities.first(where: { $0.name == self.child }) else { return ["\(subject): entity '\(self.child)' is not declared"] }
        var problems: [String] = []
        if child.name == parent.name { problems.append("\(subject): an entity cannot be its own child") }
        if !records.hasPrefix("/") { problems.append("\(subject): records '\(records)' is not a JSON pointer into the parent record (it starts with /)") }
        let expected = parent.uniqueKey + ownKey
        if child.uniqueKey != expected {
            problems.append("\(subject): the unique key of \(child.name) must be its parent's key then its own, (\(expected.joined(separator: ", "))), "
                + "not (\(child.uniqueKey.joined(separator: ", ")))")
        }
        for name in parent.uniqueKey {
            if let theirs = parent.attribute(named: name), let ours = child.attribute(named: name), theirs.type != ours.type {
                problems.append("\(subject): \(child.name).\(name) is \(ours.type.rawValue) but the parent's key attribute is \(theirs.type.rawValue)")
            }
        }
        if key == .position, let position = child.attribute(named: Self.positionAttribute), position.type != .integer {
            problems.append("\(subject): key: position stores the place in integer attribute '\(Self.positionAttribute)', which is \(position.type.rawValue)")
        }
        return problems
    }
}

/// A store keeps its relationships as JSON: `{"name", "parent", "child", "records", "key", "delete"}`,
/// `key` an array of attribute names or the string `"position"`.
extension Relationship: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, parent, child, records, key, delete
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let key: ChildKey = if let names = try? container.decode([String].self, forKey: .key) {
            .attributes(names)
        } else if try container.decode(String.self, forKey: .key) == Self.positionAttribute {
            .position
        } else {
            throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "key is neither attribute names nor \"position\"")
        }
        guard let rule = DeleteRule(rawValue: try container.decode(String.self, forKey: .delete)) else {
            throw DecodingError.dataCorruptedError(forKey: .delete, in: container, debugDescription: "unknown delete rule")
        }
        self.init(name: try container.decode(String.self, forKey: .name), parent: try container.decode(String.self, forKey: .parent),
                  child: try container.decode(String.self, forKey: .child), records: try container.decode(String.self, forKey: .records),
                  key: key, deleteRule: rule)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(parent, forKey: .parent)
        try container.encode(child, forKey: .child)
        try container.encode(records, forKey: .records)
        switch key {
        case .attributes(let names): try container.encode(names, forKey: .key)
        case .position: try container.encode(Self.positionAttribute, forKey: .key)
        }
        try container.encode(deleteRule.rawValue, forKey: .delete)
    }
}
