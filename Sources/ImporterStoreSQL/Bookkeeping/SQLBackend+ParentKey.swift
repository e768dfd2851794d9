import ImporterModel
import ImporterStore

/// A parent's new key, on both backends, inside the migration's transaction: a child's key begins
/// with its parent's, so each child takes the attributes the parent's key gains from its parent
/// record, found by the parent's old key (`MigrationStep.takeParentKey`), before its own new key
/// is made; its change rows take them too (a key is a record's identity in history: `history
/// --key`, and the image `undo` puts back). Refused (65), naming the records, when a child holds
/// another value than its parent's, or has no stored parent and the model gives no `default:`.
extension SQLBackend {
    func takeParentKey(_ link: ParentKeyLink, of child: EntityDescription, parent: EntityDescription) throws {
        let q = dialect.quoted, childTable = tables(of: child).table, parentTable = tables(of: parent).table
        let what = MigrationStep.takeParentKey(entity: child.name, link: link).description
        let label = (link.childColumns + child.uniqueKey.dropFirst(parent.uniqueKey.count)).map { "c." + q($0) }.joined(separator: ", ")
        let differs = link.attributes.map { "(c.\(q($0)) IS NOT NULL AND (p.\(q($0)) IS NULL OR c.\(q($0)) <> p.\(q($0))))" }.joined(separator: " OR ")
        let conflicts = try executor.rows("""
            SELECT \(label) FROM \(childTable) AS c JOIN \(parentTable) AS p ON \(join(link, child: "c")) WHERE \(differs) ORDER BY c."id" LIMIT 10
            """, [])
        guard conflicts.isEmpty else {
            throw StoreError.migrationRefused(what: what, reason: "stored \(child.name) records hold another value than their \(parent.name)'s: "
                + conflicts.map(Self.label).joined(separator: ", ") + ". Change those records first, or keep the key")
        }
        // A join (`UPDATE … FROM`), which PostgreSQL hashes, rather than a subquery per record.
        let taken = link.attributes.map { "\(q($0)) = p.\(q($0))" }.joined(separator: ", ")
        try executor.execute("UPDATE \(childTable) SET \(taken) FROM \(parentTable) AS p WHERE \(join(link, child: childTable))", [])
        for (name, fill) in zip(link.attributes, link.fills) {
            guard let fill else { continue }
            let (value, parameters) = sql(fill)
            try executor.execute("UPDATE \(childTable) SET \(q(name)) = \(value) WHERE \(q(name)) IS NULL", parameters)
        }
        let missing = link.attributes.map { "c.\(q($0)) IS NULL" }.joined(separator: " OR ")
        let orphans = try executor.integer("SELECT count(*) FROM \(childTable) AS c WHERE \(missing)")
        if orphans > 0 {
            let first = try executor.rows("SELECT \(label) FROM \(childTable) AS c WHERE \(missing) ORDER BY c.\"id\" LIMIT 10", [])
            throw StoreError.migrationRefused(what: what, reason: "\(orphans) stored \(child.name) record(s) have no stored \(parent.name) to take it from "
                + "(a delete: nullify keeps them): " + first.map(Self.label).joined(separator: ", ") + (orphans > first.count ? ", …" : "")
                + ". Give \(link.attributes.map { child.name + "." + $0 }.joined(separator: ", ")) a default: for them")
        }
        for (name, fill) in zip(link.attributes, link.fills) { try takeInHistory(name, link: link, of: child, parent: parent, fill: fill) }
    }

    /// `p.<parent's old key> = <alias>.<child's columns holding it>`.
    private func join(_ link: ParentKeyLink, child alias: String) -> String {
        zip(link.parentColumns, link.childColumns).map { "p.\(dialect.quoted($0)) = \(alias).\(dialect.quoted($1))" }.joined(separator: " AND ")
    }

    /// Gives `name`'s nulls in the child's change rows: a stored record's value; for a record
    /// deleted since, its parent's, stored or as the parent's change rows last held it (a parent
    /// deleted with its children); else `fill`.
    private func takeInHistory(_ name: String, link: ParentKeyLink, of child: EntityDescription, parent: EntityDescription, fill: MigrationStep.Fill?) throws {
        let q = dialect.quoted, childTables = tables(of: child), parentTables = tables(of: parent), column = q(name)
        let changes = childTables.changeTable, scratch = q("importer_parent_key")
        let keyColumns = link.parentColumns.map(q).joined(separator: ", ")
        let unset = "\(changes).\(column) IS NULL"
        for statement in [
            "UPDATE \(changes) SET \(column) = r.\(column) FROM \(childTables.table) AS r WHERE r.\"id\" = \(changes).\(childTables.recordID) AND \(unset)",
            "UPDATE \(changes) SET \(column) = p.\(column) FROM \(parentTables.table) AS p WHERE \(join(link, child: changes)) AND \(unset)",
            "CREATE TEMPORARY TABLE \(scratch) AS SELECT \(keyColumns), max(\(column)) AS \(column) FROM \(parentTables.changeTable) WHERE \(column) IS NOT NULL GROUP BY \(keyColumns)",
            "CREATE INDEX \(q("importer_parent_key_index")) ON \(scratch) (\(keyColumns))",
            "UPDATE \(changes) SET \(column) = p.\(column) FROM \(scratch) AS p WHERE \(join(link, child: changes)) AND \(unset)",
            "DROP TABLE \(scratch)",
        ] { try executor.execute(statement, []) }
        if let fill { try fillHistory(name, of: child, with: fill) }
    }

    /// Refuses (78) a migration whose key steps would leave a child's key not beginning with its
    /// parent's, of the same types (a child entity the model does not declare keeps its key).
    func checkRelatedKeys(_ steps: [MigrationStep], entities: [EntityDescription], registered: [EntityDescription]) throws {
        let keyed = Set(steps.compactMap { step -> String? in
            switch step {
            case .changeKey(let entity, _, _): entity
            case .renameAttribute(let entity, _, let attribute):
                entities.first { $0.name == entity }?.uniqueKey.contains(attribute) == true ? entity : nil
            case .retypeAttribute(let entity, let attribute, _, _, _):
                (entities + registered).first { $0.name == entity }?.uniqueKey.contains(attribute) == true ? entity : nil
            default: nil
            }
        })
        guard !keyed.isEmpty else { return }
        var renames: [String: String] = [:]
        for case .renameEntity(let from, let to) in steps { renames[from] = to }
        func definition(_ name: String) -> EntityDescription? {
            entities.first { $0.name == (renames[name] ?? name) } ?? registered.first { $0.name == name }
        }
        let removed = Set(steps.compactMap { if case .removeEntity(let name) = $0 { name } else { nil } })
        for relationship in try registeredRelationships() where !removed.contains(relationship.child) {
            guard let parent = definition(relationship.parent), let child = definition(relationship.child),
                  keyed.contains(parent.name) || keyed.contains(child.name) else { continue }
            let holds = child.uniqueKey.prefix(parent.uniqueKey.count).elementsEqual(parent.uniqueKey)
                && parent.uniqueKey.allSatisfy { parent.attribute(named: $0)?.type == child.attribute(named: $0)?.type }
            guard !holds else { continue }
            throw StoreError.incompatibleModel(entity: child.name, reason: "the key of \(parent.name) becomes (\(parent.uniqueKey.joined(separator: ", "))) "
                + "but its children \(child.name) (relationship '\(relationship.name)') would be keyed (\(child.uniqueKey.joined(separator: ", "))): "
                + "a child's key begins with its parent's, of the same types; declare \(child.name) so in the model")
        }
    }
}
