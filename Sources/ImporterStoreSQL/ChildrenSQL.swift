import ImporterModel

/// The conditions a relationship's deletes need, on a child record `e` (the alias the change
/// recording gives the entity table), for every dialect: a child's parent is the `parent` record
/// holding the parent's key values the child's key begins with (`Relationship`).
package struct ChildrenSQL {
    let child: EntityDescription
    let parent: EntityDescription

    package init(child: EntityDescription, parent: EntityDescription) {
        self.child = child
        self.parent = parent
    }

    private static func q(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    private var join: String {
        parent.uniqueKey.map { "p.\(Self.q($0)) = e.\(Self.q($0))" }.joined(separator: " AND ")
    }

    /// `e`'s parent exists and meets `condition` (on alias `p`).
    package func parentExists(where condition: String) -> String {
        "EXISTS (SELECT 1 FROM \(Self.q(parent.tableName)) AS p WHERE \(join) AND \(condition))"
    }

    /// `e`'s parent is gone.
    package var orphaned: String {
        "NOT EXISTS (SELECT 1 FROM \(Self.q(parent.tableName)) AS p WHERE \(join))"
    }

    /// `e`'s parent key is none of `keys` (each in the parent key's order: the parents whose list
    /// a feed left out), as literals: one `NOT IN` list for a one-attribute key (the database
    /// searches it as a set), else the keys' conditions OR-ed as a balanced tree, so that thousands
    /// of them stay far below SQLite's expression depth (1,000).
    package func notChildOf(_ keys: [[Value]]) -> String {
        guard !keys.isEmpty else { return "1 = 1" }
        let names = parent.uniqueKey.map { "e." + Self.q($0) }
        if names.count == 1, let name = names.first {
            return "\(name) NOT IN (" + keys.compactMap { $0.first.map(Expression.literal) }.joined(separator: ", ") + ")"
        }
        let each = keys.map { key in
            "(" + zip(names, key).map { "\($0) = \(Expression.literal($1))" }.joined(separator: " AND ") + ")"
        }
        return "NOT " + Self.balancedOr(each[...])
    }

    private static func balancedOr(_ terms: ArraySlice<String>) -> String {
        guard terms.count > 1 else { return terms.first ?? "(1 = 0)" }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }
}
