import ImporterModel
import ImporterStore

/// A few changes arranged as their records' tree: each child's change under its parent's record,
/// a parent without a change of its own in the list standing as a heading (`Station D4`).
/// Changes of entities without a parent keep their order. Holds what a report lists (a bounded
/// few), each change with the `Payload` its report needs beside it (a transaction number).
public struct ChangeTree<Payload> {
    private struct Node {
        var entity: String
        var ownKey: String
        var entry: (change: Change, payload: Payload)?
        var children: [Int] = []
    }

    /// A record of the tree as `walk` visits it: its change and payload (nil for a parent without
    /// a change in the list), its entity, its own key (after its parent's) and its depth.
    public struct Visit {
        public var entry: (change: Change, payload: Payload)?
        public var entity: String
        public var ownKey: String
        public var depth: Int
    }

    public let parents: ChildParents
    private var nodes: [Node] = []
    private var roots: [Int] = []
    /// Node index by entity and key description.
    private var index: [String: Int] = [:]

    public init(parents: ChildParents) {
        self.parents = parents
    }

    public var isEmpty: Bool { nodes.isEmpty }

    public mutating func add(_ change: Change, _ payload: Payload) {
        let node = self.node(entity: change.entity, key: change.key)
        nodes[node].entry = (change, payload)
    }

    /// Visits the records in tree order, each at its depth (0 for a record without a parent in the
    /// list).
    public func walk(_ visit: (Visit) throws -> Void) rethrows {
        func walk(_ node: Int, depth: Int) throws {
            try visit(Visit(entry: nodes[node].entry, entity: nodes[node].entity, ownKey: nodes[node].ownKey, depth: depth))
            for child in nodes[node].children { try walk(child, depth: depth + 1) }
        }
        for root in roots { try walk(root, depth: 0) }
    }

    /// The node of `entity`'s record keyed `key`, made (with the nodes of its ancestors) when new.
    private mutating func node(entity: String, key: [(String, Value)]) -> Int {
        let identity = entity + "\u{0}" + key.map(\.1.description).joined(separator: "\u{0}")
        if let found = index[identity] { return found }
        let parent = parents.parent(of: entity, keyed: key)
        let own = key.dropFirst(parent?.key.count ?? 0).map(\.1.description).joined(separator: ", ")
        nodes.append(Node(entity: entity, ownKey: own))
        let made = nodes.count - 1
        index[identity] = made
        if let parent {
            let above = node(entity: parent.relationship.parent, key: parent.key)
            nodes[above].children.append(made)
        } else {
            roots.append(made)
        }
        return made
    }
}
