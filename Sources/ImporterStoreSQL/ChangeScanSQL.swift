import ImporterModel
import ImporterStore

/// An entity's change rows in a range (ids in parameters 1...2) as one row per record: its first
/// relevant change (alias `f`, whose before-image leaves the record's group) and its last (alias
/// `l`, whose after-image enters one). Update rows that touch none of `attributes` are not
/// relevant. With `oneTransaction` (the range lies in one transaction, which holds at most one
/// change row per record) both are the same row and no record is grouped.
struct ChangeScanSQL {
    let entity: EntityDescription
    let dialect: any SQLDialect
    let oneTransaction: Bool
    /// The stored attributes the scan's readers depend on.
    let attributes: Set<String>

    /// Views are replayed in write transactions, on stores brought to the current layout.
    private var columns: ChangeColumns { .current }
    private func q(_ name: String) -> String { dialect.quoted(name) }
    private var first: String { oneTransaction ? "c" : "f" }
    private var last: String { oneTransaction ? "c" : "l" }
    private var type: String { q(columns.type) }
    private var changeTable: String { q("importer_change_" + entity.tableName) }

    /// 1 when the record had a before-image (its first change is no insert), else 0.
    var leaves: String { "CASE WHEN \(first).\(type) <> 'insert' THEN 1 ELSE 0 END" }
    /// 1 when the record has an after-image (its last change is no delete), else 0.
    var enters: String { "CASE WHEN \(last).\(type) <> 'delete' THEN 1 ELSE 0 END" }

    /// A stored attribute's value after the record's last change.
    func afterImage(_ name: String) -> String { "\(last).\(q(name))" }

    /// A stored attribute's value before the record's first change: an update keeps the old values
    /// of the attributes it changed; other rows hold the whole image.
    func beforeImage(_ name: String) -> String {
        // The list test first: it rules out most rows (inserts and deletes have no list).
        let changed = "\(first).\(q(columns.changed))"
        return "(CASE WHEN \(dialect.list(changed, contains: name)) AND \(first).\(type) = 'update' THEN \(first).\(q(columns.old(name))) ELSE \(first).\(q(name)) END)"
    }

    /// The query selecting `selections` (over `f`/`l`, or `c`) from one row per record.
    func select(_ selections: [String]) -> String {
        let selected = "SELECT \(selections.joined(separator: ", "))"
        if oneTransaction { return "\(selected) FROM \(changeTable) AS c WHERE \(range(in: "c."))" }
        let changeID = q(columns.changeID)
        let ends = "SELECT \(q(columns.recordID)), min(\(changeID)) AS importer_first, max(\(changeID)) AS importer_last FROM \(changeTable) WHERE \(range(in: "")) GROUP BY \(q(columns.recordID))"
        return """
            WITH importer_ends AS (\(ends)) \(selected) FROM importer_ends
              JOIN \(changeTable) AS f ON f.\(changeID) = importer_ends.importer_first
              JOIN \(changeTable) AS l ON l.\(changeID) = importer_ends.importer_last
            """
    }

    /// The relevant change rows in the range, columns qualified by `prefix`.
    func range(in prefix: String) -> String {
        let touches = attributes.sorted().map { dialect.list(prefix + q(columns.changed), contains: $0) }
        let relevantUpdate = touches.isEmpty ? "FALSE" : "(\(touches.joined(separator: " OR ")))"
        return "\(prefix)\(q(columns.changeID)) BETWEEN \(dialect.parameter(1)) AND \(dialect.parameter(2)) AND (\(prefix)\(type) <> 'update' OR \(relevantUpdate))"
    }
}
