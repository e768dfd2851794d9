import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// The SQL that stores one entity and tracks its history: the entity table, its change table, the
/// guards that refuse untracked writes, and the statements that record changes.
///
/// How changes are captured was chosen by measurement (Docs/DECISIONS.md, "History capture"). Per-row
/// triggers made every upsert keep a statement journal and cost 2–3× the upsert itself, so:
/// - inserts: one set-based `INSERT … SELECT` at the end of the run records every record the run
///   inserted (ids above the table's AUTOINCREMENT sequence at the start: one writer at a time
///   makes them contiguous), with its final values;
/// - updates: SQLite's preupdate hook hands over the old and new values of each updated row
///   (`ChangeCapture`), and the change row is written right after the statement;
/// - deletes (sync): the doomed rows are copied as delete changes by one `INSERT … SELECT`, then
///   deleted.
///
/// Guards make untracked writes impossible rather than silently lost: the stored generated column
/// `importer_tracked` calls `importer_writer()` and the `BEFORE DELETE` trigger calls
/// `importer_transaction()`, functions that only importer's own connections define (and the latter
/// only while an import is open). Other programs can read everything, and run
/// `PRAGMA integrity_check`, but their INSERT, UPDATE and DELETE fail with "no such function".
///
/// Change table layout (`importer_change_<table>`), one row per changed record per transaction
/// (importer's own columns are named by `ChangeColumns`, all starting with `importer_`, so that no
/// attribute name can collide with them):
/// - `importer_change_id` (AUTOINCREMENT): the order of changes; each transaction's changes are one
///   contiguous range, recorded in `importer_transaction_entity`, so reading a transaction is a
///   range scan and appending is the B-tree's cheapest insert;
/// - `importer_transaction_number`, `importer_record_id`, `importer_type` (`insert`, `update`, `delete`);
/// - `importer_changed`: for updates, the changed attribute names, comma-separated, in entity order;
/// - one column per attribute: the values after the change (inserts, updates) or before it (deletes);
/// - one `importer_old.<attribute>` column per attribute: for updates, the old value of each changed
///   attribute.
/// A partial index on the record id covers updates and deletes only, so inserts never pay for it.
public struct EntitySchema: Sendable {
    public let entity: EntityDescription
    /// The names of the change table's own columns (`legacy` only for a store read as it is).
    public let columns: ChangeColumns

    public init(entity: EntityDescription, columns: ChangeColumns = .current) {
        self.entity = entity
        self.columns = columns
    }

    public var table: String { SQLIdentifier.quoted(entity.tableName) }
    public var changeTableName: String { "importer_change_" + entity.tableName }
    public var changeTable: String { SQLIdentifier.quoted(changeTableName) }
    static let guardColumn = "importer_tracked"

    static func q(_ name: String) -> String { SQLIdentifier.quoted(name) }
    /// The quoted column of an update's old value of attribute `name`.
    func old(_ name: String) -> String { Self.q(columns.old(name)) }
    var changeID: String { Self.q(columns.changeID) }
    var transactionNumber: String { Self.q(columns.transactionNumber) }
    var recordID: String { Self.q(columns.recordID) }
    var type: String { Self.q(columns.type) }
    var changed: String { Self.q(columns.changed) }

    public var createStatements: [String] {
        [createTable, createChangeTable, createChangeIndex, createDeleteGuard]
    }

    /// The entity table without its guard (benchmarks build their baseline on it).
    public var createTableStatement: String { createTable(guarded: false) }

    var createTable: String { createTable(guarded: true) }

    func createTable(guarded: Bool) -> String {
        var columns = entity.attributes.map { "\(Self.q($0.name)) \($0.type.sqlType)\($0.isOptional ? "" : " NOT NULL")" }
        if guarded { columns.append("\(Self.q(Self.guardColumn)) INTEGER GENERATED ALWAYS AS (importer_writer()) STORED") }
        let key = entity.uniqueKey.map(Self.q).joined(separator: ", ")
        return """
            CREATE TABLE \(table) (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              \(columns.joined(separator: ",\n  ")),
              UNIQUE (\(key))
            ) STRICT
            """
    }

    var changeIndexName: String { SQLIdentifier.quoted("importer_change_\(entity.tableName)_record") }

    var createChangeTable: String {
        let values = entity.attributes.map { "\(Self.q($0.name)) \($0.type.sqlType)" }
        let olds = entity.attributes.map { "\(old($0.name)) \($0.type.sqlType)" }
        return """
            CREATE TABLE \(changeTable) (
              \(changeID) INTEGER PRIMARY KEY AUTOINCREMENT,
              \(transactionNumber) INTEGER NOT NULL,
              \(recordID) INTEGER NOT NULL,
              \(type) TEXT NOT NULL CHECK (\(type) IN ('insert', 'update', 'delete')),
              \(changed) TEXT,
              \((values + olds).joined(separator: ",\n  "))
            ) STRICT
            """
    }

    var createChangeIndex: String {
        "CREATE INDEX \(changeIndexName) ON \(changeTable) (\(recordID), \(transactionNumber)) WHERE \(type) <> 'insert'"
    }

    var deleteGuardName: String { SQLIdentifier.quoted("importer_guard_\(entity.tableName)_delete") }

    var createDeleteGuard: String {
        """
        CREATE TRIGGER \(deleteGuardName) BEFORE DELETE ON \(table) BEGIN
          SELECT importer_transaction();
        END
        """
    }

    /// Records as inserts of transaction `?1` every record with an id above `?2` (the rows the run
    /// inserted), with their values at the end of the run.
    var recordInserts: String {
        let names = entity.attributes.map { Self.q($0.name) }.joined(separator: ", ")
        return """
            INSERT INTO \(changeTable) (\(transactionNumber), \(recordID), \(type), \(names))
            SELECT ?1, "id", 'insert', \(names) FROM \(table) WHERE "id" > ?2 ORDER BY "id"
            """
    }

    /// Records as inserts of transaction `?1` the records `ids` (put back by an undo: their ids are
    /// older than the transaction), with their values.
    func recordInserts(ids: [Int64]) -> String {
        let names = entity.attributes.map { Self.q($0.name) }.joined(separator: ", ")
        return """
            INSERT INTO \(changeTable) (\(transactionNumber), \(recordID), \(type), \(names))
            SELECT ?1, "id", 'insert', \(names) FROM \(table) WHERE "id" IN (\(ids.map(String.init).joined(separator: ", "))) ORDER BY "id"
            """
    }

    /// Records as deletes of transaction `?1` the records matching `condition`, with their values.
    func recordDeletes(where condition: String) -> String {
        let names = entity.attributes.map { Self.q($0.name) }.joined(separator: ", ")
        return """
            INSERT INTO \(changeTable) (\(transactionNumber), \(recordID), \(type), \(names))
            SELECT ?1, "id", 'delete', \(names) FROM \(table) WHERE \(condition) ORDER BY "id"
            """
    }

    /// Deletes the records recorded as deletes in change rows above `?1` (a range scan of the
    /// change table, instead of evaluating the delete condition over the entity table again).
    var deleteRecorded: String {
        "DELETE FROM \(table) WHERE \"id\" IN (SELECT \(recordID) FROM \(changeTable) WHERE \(changeID) > ?1 AND \(type) = 'delete')"
    }

    /// Inserts one update row: transaction, record id, changed list, the values after, the old
    /// values of the changed attributes.
    var insertUpdate: String {
        let columns = [transactionNumber, recordID, type, changed]
            + entity.attributes.map { Self.q($0.name) } + entity.attributes.map { old($0.name) }
        let parameters = ["?1", "?2", "'update'", "?3"] + (0..<(2 * entity.attributes.count)).map { "?\($0 + 4)" }
        return "INSERT INTO \(changeTable) (\(columns.joined(separator: ", "))) VALUES (\(parameters.joined(separator: ", ")))"
    }

    /// The arguments of `insertUpdate` for record `recordID` going from `old` to `new` (every
    /// attribute, in entity order) in `transaction`, or nil when no attribute changed.
    func updateArguments(transaction: Int64, recordID: Int64, old: [Value], new: [Value]) -> [Value]? {
        let changed = entity.attributes.indices.filter { !old[$0].isSame(as: new[$0]) }
        guard !changed.isEmpty else { return nil }
        var arguments: [Value] = [.integer(transaction), .integer(recordID), .text(changed.map { entity.attributes[$0].name }.joined(separator: ","))]
        arguments += new
        arguments += entity.attributes.indices.map { changed.contains($0) ? old[$0] : .null }
        return arguments
    }

    /// Removes the update rows written since change `?1` for records with an id above `?2`: records
    /// the run inserted and then changed again (a key repeated in the feed); their insert row,
    /// written at the end, carries the final values.
    var clearInsertedUpdates: String {
        "DELETE FROM \(changeTable) WHERE \(changeID) > ?1 AND \(recordID) > ?2"
    }

    /// The last id an AUTOINCREMENT table (the entity table or its change table) assigned; ids are
    /// never reused, so it bounds the table's row count from above.
    static func lastAssignedID(_ tableName: String, in connection: Connection) throws -> Int64 {
        try connection.integer("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(tableName)])
    }

    /// The statements that rename a `legacy` change table's own columns to the `current` names
    /// (SQLite rewrites the index and keeps the data in place).
    var renameLegacyColumns: [String] {
        ChangeColumns.legacyRenames(attributes: entity.attributes.map(\.name)).map {
            "ALTER TABLE \(changeTable) RENAME COLUMN \(Self.q($0.from)) TO \(Self.q($0.to))"
        }
    }

    /// Statements that add an optional attribute to an existing store (the only model change that
    /// cannot lose data).
    func addColumn(_ attribute: AttributeDescription) -> [String] {
        [
            "ALTER TABLE \(table) ADD COLUMN \(Self.q(attribute.name)) \(attribute.type.sqlType)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(Self.q(attribute.name)) \(attribute.type.sqlType)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(old(attribute.name)) \(attribute.type.sqlType)",
        ]
    }
}
