/// How a feed mapping fills the children of one relationship of its entity: the fields of each
/// child record, read relative to the child's element in the parent's array. The parent's key
/// attributes come from the parent's own fields; a `position` key from the child's place.
public struct ChildMapping: Sendable, Equatable {
    public var relationship: String
    public var fields: [FieldMapping]
    /// The children of these children (a relationship of the child entity), read from each
    /// child's element.
    public var children: [ChildMapping]

    public init(relationship: String, fields: [FieldMapping], children: [ChildMapping] = []) {
        self.relationship = relationship
        self.fields = fields
        self.children = children
    }
}

/// Where a derived child mapping's records are: the elements of the array at `path` in each
/// parent element, itself found in each record of the parent mapping's `records` through the
/// arrays at `enclosing` (outermost first; none when the parent is the record). A field whose name
/// starts with `ChildRecords.parentPrefix` n times is read from the element n levels up (the
/// parent, the grandparent…); `ChildRecords.positionField` is the child's place.
public struct ChildRecords: Sendable, Equatable {
    public var path: String
    public var relationship: String
    public var parentEntity: String
    public var enclosing: [String] = []

    public static let parentPrefix = "../"
    public static let positionField = "#position"

    public init(path: String, relationship: String, parentEntity: String, enclosing: [String] = []) {
        self.path = path
        self.relationship = relationship
        self.parentEntity = parentEntity
        self.enclosing = enclosing
    }
}

extension Model {
    /// The relationship named `name` of entity `parent`.
    public func relationship(_ name: String, of parent: String) -> Relationship? {
        relationships.first { $0.parent == parent && $0.name == name }
    }

    /// The relationship whose child is `child`, if it is one.
    public func relationship(toChild child: String) -> Relationship? {
        relationships.first { $0.child == child }
    }

    /// The key drift of `entity`: its own, or for a child its nearest ancestor's, whose drifting
    /// attribute its key holds too (a child's key begins with its parent's). A re-keyed parent's
    /// children then pair with the same children read under its new key (the same own key, the
    /// drifting value within the tolerance): each is re-keyed, keeping its id and history.
    public func drift(of entity: String) -> KeyDrift? {
        var name = entity
        for _ in 0...relationships.count {
            if let drift = self.entity(named: name)?.drift {
                return name == entity ? drift : KeyDrift(attribute: drift.attribute, tolerance: drift.tolerance, on: drift.on)
            }
            guard let parent = relationship(toChild: name)?.parent else { return nil }
            name = parent
        }
        return nil
    }

    /// The paths of the lists `feed`'s children are read from, below its records (`/vehicles`).
    public func childListPaths(of feed: FeedMapping) -> [String] {
        childFeeds(of: feed).compactMap(\.childRecords).filter(\.enclosing.isEmpty).map(\.path)
    }

    /// The mappings that read `feed`'s children, one per `children` entry (and per entry nested in
    /// those), each reading the same document: the child entity's records, with their parents'
    /// key fields read from the elements above them.
    public func childFeeds(of feed: FeedMapping) -> [FeedMapping] {
        guard let parent = entity(named: feed.entity) else { return [] }
        let parentKey = parent.uniqueKey.compactMap { key in feed.fields.first { $0.attribute == key } }
        return feed.children.flatMap { childFeeds($0, of: parent, key: parentKey, enclosing: [], feed: feed, name: feed.name) }
    }

    /// `key`: the parent's key fields as read from the parent's element.
    private func childFeeds(_ children: ChildMapping, of parent: EntityDescription, key: [FieldMapping], enclosing: [String],
                            feed: FeedMapping, name: String) -> [FeedMapping] {
        guard let relationship = relationship(children.relationship, of: parent.name) else { return [] }
        let inherited = key.map { field -> FieldMapping in
            var field = field
            field.field = field.field.map { ChildRecords.parentPrefix + $0 }
            return field
        }
        let position = relationship.key == .position ? [FieldMapping(attribute: Relationship.positionAttribute, field: ChildRecords.positionField)] : []
        var mapping = FeedMapping(name: "\(name)/\(relationship.name)", entity: relationship.child, format: feed.format,
                                  records: feed.records, namespaces: feed.namespaces, fields: inherited + position + children.fields)
        mapping.duplicates = feed.duplicates
        mapping.childRecords = ChildRecords(path: relationship.records, relationship: relationship.name, parentEntity: parent.name, enclosing: enclosing)
        guard let child = entity(named: relationship.child) else { return [mapping] }
        let own = relationship.ownKey.compactMap { name in children.fields.first { $0.attribute == name } }
        return [mapping] + children.children.flatMap {
            childFeeds($0, of: child, key: inherited + own, enclosing: enclosing + [relationship.records], feed: feed, name: mapping.name)
        }
    }

    /// Problems with relationships and the feed mappings' `children`.
    func relationshipProblems() -> [String] {
        var problems: [String] = []
        var children = Set<String>()
        for relationship in relationships {
            guard let parent = entity(named: relationship.parent) else { continue }
            problems += relationship.problems(parent: parent, entities: entities)
            if !children.insert(relationship.child).inserted {
                problems.append("entity \(parent.name): relationship '\(relationship.name)': \(relationship.child) is already the child of another relationship")
            }
        }
        for relationship in relationships where entity(named: relationship.child)?.drift != nil {
            problems.append("entity \(relationship.child): a child entity cannot declare key drift: it follows its parent's "
                + "(relationship '\(relationship.name)' of \(relationship.parent))")
        }
        for relationship in relationships where children.contains(relationship.parent) && self.relationship(toChild: relationship.parent)?.key == .position {
            problems.append("entity \(relationship.parent): relationship '\(relationship.name)': an entity keyed by position cannot have children "
                + "(give it a key of its own)")
        }
        for feed in feeds { problems += childMappingProblems(feed.children, of: feed.entity, feed: feed) }
        return problems
    }

    private func childMappingProblems(_ entries: [ChildMapping], of entityName: String, feed: FeedMapping) -> [String] {
        var problems: [String] = []
        for children in entries {
            guard let relationship = relationship(children.relationship, of: entityName) else {
                problems.append("feed \(feed.name): children '\(children.relationship)' is not a relationship of \(entityName)")
                continue
            }
            problems += childMappingProblems(children.children, of: relationship.child, feed: feed)
            guard feed.format == .json || feed.format == .ndjson || feed.format == .xml else {
                problems.append("feed \(feed.name): children '\(children.relationship)' need a json, ndjson or xml feed (\(feed.format.rawValue) children are not read yet)")
                continue
            }
            guard let child = entity(named: relationship.child), let parent = entity(named: entityName) else { continue }
            for field in children.fields {
                if child.attribute(named: field.attribute) == nil {
                    problems.append("feed \(feed.name): children '\(children.relationship)': '\(field.attribute)' is not an attribute of \(child.name)")
                } else if parent.uniqueKey.contains(field.attribute) || (relationship.key == .position && field.attribute == Relationship.positionAttribute) {
                    problems.append("feed \(feed.name): children '\(children.relationship)': '\(field.attribute)' is not mapped here "
                        + "(it comes from the \(parent.uniqueKey.contains(field.attribute) ? "parent's key" : "child's place in the array"))")
                }
                if field.field?.hasPrefix(ChildRecords.parentPrefix) == true {
                    problems.append("feed \(feed.name): children '\(children.relationship)': '\(field.attribute)' reads '\(field.field ?? "")': "
                        + "a child's fields are read from its own element (only the parent's key is taken from the parent)")
                }
            }
            for key in relationship.ownKey where key != Relationship.positionAttribute || relationship.key != .position {
                if !children.fields.contains(where: { $0.attribute == key }) {
                    problems.append("feed \(feed.name): children '\(children.relationship)': the key attribute '\(key)' of \(child.name) is not mapped")
                }
            }
            for key in parent.uniqueKey where entityName == feed.entity && feed.fields.first(where: { $0.attribute == key })?.field?.hasPrefix(ChildRecords.parentPrefix) == true {
                problems.append("feed \(feed.name): children '\(children.relationship)': the parent's key '\(key)' is read from outside the record, which children cannot follow yet")
            }
        }
        return problems
    }
}
