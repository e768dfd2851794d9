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
    /// a feed left out): `KeyListSQL.none`.
    package func notChildOf(_ keys: [[Value]]) -> String {
        KeyListSQL.none(of: keys, columns: parent.uniqueKey)
    }
}
