import ImporterStore
import ImporterModel

/// The text lines of a few changes, each child's change under its parent's: a parent without a
/// change of its own in the list gets a heading (`· Station D4`), and a child is shown by its own
/// key only (its parent's is the line above). Changes of entities without a parent keep their
/// order. Holds the changes a text report lists (a bounded few).
public struct GroupedChangeLines {
    private struct Node {
        var heading: String
        var line: String?
        var children: [Int] = []
    }

    private let parents: ChildParents
    private var nodes: [Node] = []
    private var roots: [Int] = []
    /// Node index by entity and key description.
    private var index: [String: Int] = [:]

    public init(parents: ChildParents) {
        self.parents = parents
    }

    public mutating func add(_ change: Change) {
        let node = self.node(entity: change.entity, key: change.key)
        nodes[node].line = TextFormatting.changeLine(change, ownKeyFrom: parents.parent(of: change)?.key.count ?? 0)
    }

    /// The lines, each indented by its depth under the report's own indent.
    public func lines(indent: String = "") -> [String] {
        var lines: [String] = []
        func walk(_ node: Int, depth: Int) {
            let pad = indent + String(repeating: "    ", count: depth)
            lines.append(pad + (nodes[node].line ?? "  · " + nodes[node].heading))
            for child in nodes[node].children { walk(child, depth: depth + 1) }
        }
        for root in roots { walk(root, depth: 0) }
        return lines
    }

    /// The node of `entity`'s record keyed `key`, made (with the nodes of its ancestors) when new.
    private mutating func node(entity: String, key: [(String, Value)]) -> Int {
        let identity = entity + "\u{0}" + key.map(\.1.description).joined(separator: "\u{0}")
        if let found = index[identity] { return found }
        let parent = parents.parent(of: entity, keyed: key)
        let own = key.dropFirst(parent?.key.count ?? 0).map(\.1.description).joined(separator: ", ")
        nodes.append(Node(heading: "\(entity) \(own)"))
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
