import Foundation
import ImporterModel
import ImporterStore

/// `importer migrate`'s entity renames (`renamed-from:` on an entity) and table renames, on both
/// backends, inside the migration's transaction. Neither rewrites a record: a name is held by the
/// store's own tables (registration, each transaction's entities, views, consumers, rejects, the
/// relationships and retired attributes in `importer_metadata`), a table name by the entity's two
/// tables and the indexes named after them.
extension SQLBackend {
    /// Renames entity `from` to `to` wherever the store holds its name. Past model versions keep
    /// the name they had.
    func renameEntity(from: String, to: String) throws {
        for table in ["importer_entity", "importer_transaction_entity", "importer_reject", "importer_view"] {
            let column = table == "importer_entity" ? "name" : "entity"
            try executor.execute("UPDATE \(table) SET \(dialect.quoted(column)) = \(p(1)) WHERE \(dialect.quoted(column)) = \(p(2))", [.text(to), .text(from)])
        }
        for var view in try registeredViews() where view.entity == from || view.entity == to {
            view.entity = to
            try executor.execute(#"UPDATE importer_view SET "definition" = \#(p(1)) WHERE "name" = \#(p(2))"#, [.text(try Self.sortedJSON(view)), .text(view.name)])
        }
        for var consumer in try consumers() where consumer.entities.contains(from) {
            consumer.entities = consumer.entities.map { $0 == from ? to : $0 }
            guard let column = Consumer.storedColumnNames.firstIndex(of: "entities") else { continue }
            try executor.execute(#"UPDATE importer_consumer SET "entities" = \#(p(1)) WHERE "name" = \#(p(2))"#, [consumer.storedRow[column], .text(consumer.name)])
        }
        let relationships = try registeredRelationships()
        if relationships.contains(where: { $0.parent == from || $0.child == from }) {
            let renamed = relationships.map { relationship in
                var relationship = relationship
                if relationship.parent == from { relationship.parent = to }
                if relationship.child == from { relationship.child = to }
                return relationship
            }
            try setMetadata([(key: Self.relationshipsKey, value: .text(try Self.sortedJSON(renamed)))])
        }
        if let retired = try metadata("retired:" + from) {
            try setMetadata([(key: "retired:" + to, value: retired)])
            try executor.execute(#"DELETE FROM importer_metadata WHERE "key" = \#(p(1))"#, [.text("retired:" + from)])
        }
    }

    /// Renames `entity`'s table (as registered) and its change table to `table`'s; the change
    /// table's index and the secondary indexes, named after the table, are made again under the
    /// new name; the backend renames its guard (`renameGuard`).
    func renameTable(of entity: EntityDescription, to table: String) throws {
        var renamed = entity
        renamed.tableName = table
        let old = tables(of: entity), new = tables(of: renamed), q = dialect.quoted
        try executor.execute("DROP INDEX \(q("importer_change_\(entity.tableName)_record"))", [])
        for index in entity.indexes { try executor.execute(old.dropIndex(index), []) }
        // Through a name of its own: SQLite's names ignore case, so `Stations` → `stations` directly
        // would meet itself.
        let staged = q("importer_renaming")
        for (from, to) in [(old.table, new.table), (old.changeTable, new.changeTable)] {
            try executor.execute("ALTER TABLE \(from) RENAME TO \(staged)", [])
            try executor.execute("ALTER TABLE \(staged) RENAME TO \(to)", [])
        }
        try executor.execute(new.createChangeIndex, [])
        for index in entity.indexes { try executor.execute(new.createIndex(index), []) }
        try executor.execute(#"UPDATE importer_entity SET "table_name" = \#(p(1)) WHERE "name" = \#(p(2))"#, [.text(table), .text(entity.name)])
        try renameGuard(of: entity, to: renamed)
    }
}
