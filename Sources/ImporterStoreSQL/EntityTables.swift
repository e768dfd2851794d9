import ImporterModel
import ImporterStore

/// One entity's tables as both backends name and write them, quoted in a dialect: the entity table
/// (`"id"` and one column per attribute) and its change table, and the statements both backends
/// use to create the change table and record changes set-based. Each backend extends it with what
/// truly differs: the entity table itself and its guard, how updates are captured.
///
/// Change table layout (`importer_change_<table>`), one row per changed record per transaction
/// (importer's own columns are named by `ChangeColumns`, all starting with `importer_`, so that no
/// attribute name can collide with them):
/// - `importer_change_id` (assigned, never reused): the order of changes; each transaction's
///   changes are one contiguous range, recorded in `importer_transaction_entity`, so reading a
///   transaction is a range scan and appending is the B-tree's cheapest insert;
/// - `importer_transaction_number`, `importer_record_id`, `importer_type` (`insert`, `update`, `delete`);
/// - `importer_changed`: for updates, the changed attribute names, comma-separated, in entity order;
/// - one column per attribute: the values after the change (inserts, updates) or before it (deletes);
/// - one `importer_old.<attribute>` column per attribute: for updates, the old value of each changed
///   attribute.
/// A partial index on the record id covers updates and deletes only, so inserts never pay for it.
package struct EntityTables: Sendable {
    package let entity: EntityDescription
    package let dialect: any SQLDialect
    /// The names of the change table's own columns (`legacy` only for a store read as it is).
    package let columns: ChangeColumns

    package init(entity: EntityDescription, dialect: any SQLDialect, columns: ChangeColumns = .current) {
        self.entity = entity
        self.dialect = dialect
        self.columns = columns
    }

    func q(_ name: String) -> String { dialect.quoted(name) }
    package var table: String { q(entity.tableName) }
    package var changeTableName: String { "importer_change_" + entity.tableName }
    package var changeTable: String { q(changeTableName) }
    /// The attributes' columns, in entity order.
    package var names: [String] { entity.attributes.map { q($0.name) } }
    /// The quoted column of an update's old value of attribute `name`.
    package func old(_ name: String) -> String { q(columns.old(name)) }
    package var changeID: String { q(columns.changeID) }
    package var transactionNumber: String { q(columns.transactionNumber) }
    package var recordID: String { q(columns.recordID) }
    package var type: String { q(columns.type) }
    package var changed: String { q(columns.changed) }
    /// `transaction number, record id, type` (the head of a change row's insert column list).
    package var changeHead: String { "\(transactionNumber), \(recordID), \(type)" }

    package var createChangeTable: String {
        let values = entity.attributes.map { "\(q($0.name)) \(dialect.columnType($0.type))" }
        let olds = entity.attributes.map { "\(old($0.name)) \(dialect.columnType($0.type))" }
        let text = dialect.columnType(.text), integer = dialect.columnType(.integer)
        return dialect.createTable(changeTable, [
            "\(changeID) \(dialect.generatedKey(neverReused: true))",
            "\(transactionNumber) \(integer) NOT NULL",
            "\(recordID) \(integer) NOT NULL",
            "\(type) \(text) NOT NULL CHECK (\(type) IN ('insert', 'update', 'delete'))",
            "\(changed) \(text)",
        ] + values + olds)
    }

    package var createChangeIndex: String {
        "CREATE INDEX \(q("importer_change_\(entity.tableName)_record")) ON \(changeTable) (\(recordID), \(transactionNumber)) WHERE \(type) <> 'insert'"
    }

    /// The name of the index on `columns` (`indexes:`): the table's and a digest of the columns,
    /// within PostgreSQL's 63 bytes.
    package func indexName(_ columns: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in columns.joined(separator: "\u{0}").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "importer_idx_\(entity.tableName)_" + String(hash & 0xffff_ffff, radix: 16)
    }

    package func createIndex(_ columns: [String]) -> String {
        "CREATE INDEX \(q(indexName(columns))) ON \(table) (\(columns.map(q).joined(separator: ", ")))"
    }

    package func dropIndex(_ columns: [String]) -> String {
        "DROP INDEX \(q(indexName(columns)))"
    }

    /// The statements that add an optional attribute to an existing store (the only model change
    /// that cannot lose data): its column in the entity table, and its value and old value in the
    /// change table.
    package func addColumn(_ attribute: AttributeDescription) -> [String] {
        let type = dialect.columnType(attribute.type)
        return [
            "ALTER TABLE \(table) ADD COLUMN \(q(attribute.name)) \(type)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(q(attribute.name)) \(type)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(old(attribute.name)) \(type)",
        ]
    }

    /// The statements that rename a `legacy` change table's own columns to the `current` names
    /// (the data stays in place, the index follows its columns).
    package var renameLegacyColumns: [String] {
        ChangeColumns.legacyRenames(attributes: entity.attributes.map(\.name)).map {
            "ALTER TABLE \(changeTable) RENAME COLUMN \(q($0.from)) TO \(q($0.to))"
        }
    }

    /// Records as inserts of transaction parameter 1 the records with an id above parameter 2 (the
    /// run's inserts: one writer at a time, and ids only grow), with their values at the end of the
    /// run.
    package var recordInserts: String { recordInserts(where: "\"id\" > \(dialect.parameter(2))") }

    /// Records as inserts of transaction parameter 1 the records matching `condition` (records put
    /// back by an undo keep their older ids), with their values.
    package func recordInserts(where condition: String) -> String { record("insert", where: condition) }

    /// Records as deletes of transaction parameter 1 the records matching `condition` (over the
    /// entity table as `e`), with their values.
    package func recordDeletes(where condition: String) -> String { record("delete", where: condition) }

    private func record(_ type: String, where condition: String) -> String {
        let columns = names.joined(separator: ", ")
        return """
            INSERT INTO \(changeTable) (\(changeHead), \(columns))
            SELECT \(dialect.parameter(1)), "id", '\(type)', \(columns) FROM \(table) AS e WHERE \(condition) ORDER BY "id"
            """
    }

    /// Deletes the records recorded as deletes in change rows above parameter 1 (a range scan of
    /// the change table, instead of evaluating the delete condition over the entity table again).
    package var deleteRecorded: String {
        "DELETE FROM \(table) WHERE \"id\" IN (SELECT \(recordID) FROM \(changeTable) WHERE \(changeID) > \(dialect.parameter(1)) AND \(type) = 'delete')"
    }
}
