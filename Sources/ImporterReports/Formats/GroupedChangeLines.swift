import ImporterStore
import ImporterModel

/// The text lines of a few changes, each child's change under its parent's (`ChangeTree`): a
/// parent without a change of its own in the list gets a heading (`· Station D4`), and a child is
/// shown by its own key only (its parent's is the line above).
public struct GroupedChangeLines {
    private var tree: ChangeTree<Void>

    public init(parents: ChildParents) {
        tree = ChangeTree(parents: parents)
    }

    public mutating func add(_ change: Change) {
        tree.add(change, ())
    }

    /// The lines, each indented by its depth under the report's own indent.
    public func lines(indent: String = "") -> [String] {
        var lines: [String] = []
        tree.walk { record in
            let pad = indent + String(repeating: "    ", count: record.depth)
            let line = record.entry.map { TextFormatting.changeLine($0.change, ownKeyFrom: tree.parents.parent(of: $0.change)?.key.count ?? 0) }
            lines.append(pad + (line ?? "  · \(record.entity) \(record.ownKey)"))
        }
        return lines
    }
}
