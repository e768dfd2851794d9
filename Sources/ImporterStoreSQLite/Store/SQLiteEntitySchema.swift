import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

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
/// The change table's layout and the statements both backends share are `EntityTables`'s; this
/// adds SQLite's entity table, its guards, and the statements of the capture.
package typealias SQLiteEntitySchema = EntityTables

extension EntityTables {
    /// The entity's tables in SQLite (`legacy` columns only for a store read as it is).
    package init(entity: EntityDescription, columns: ChangeColumns = .current) {
        self.init(entity: entity, dialect: SQLiteDialect(), columns: columns)
    }

    static let guardColumn = "importer_tracked"

    static func q(_ name: String) -> String { SQLIdentifier.quoted(name) }

    var createStatements: [String] {
        [createTable, createChangeTable, createChangeIndex, createDeleteGuard]
    }

    /// The entity table without its guard (benchmarks build their baseline on it).
    package var createTableStatement: String { createTable(guarded: false) }

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

    var deleteGuardName: String { SQLIdentifier.quoted("importer_guard_\(entity.tableName)_delete") }

    var createDeleteGuard: String {
        """
        CREATE TRIGGER \(deleteGuardName) BEFORE DELETE ON \(table) BEGIN
          SELECT importer_transaction();
        END
        """
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
    static func lastAssignedID(_ tableName: String, in connection: SQLiteConnection) throws -> Int64 {
        try connection.integer("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(tableName)])
    }
}

extension EntityTables {
    /// The statements that give the entity table `entity`'s constraints (its unique key, its NOT
    /// NULL columns), which SQLite cannot alter in place: a copy of the table made with them takes
    /// its place, rows with their ids, its AUTOINCREMENT sequence (ids are never reused), its
    /// guard, and `indexes` (the `CREATE INDEX` text of the table's own indexes) as they were.
    /// `taking`: an attribute whose values are `value` over the table as `e` and what `join`
    /// adds, instead of its column (a retyped key attribute, `RetypeLookup.converted`).
    func rebuildStatements(indexes: [String], taking converted: (attribute: String, source: (join: String, value: String))? = nil) -> [String] {
        var staged = entity
        staged.tableName = "importer_rebuild_" + entity.tableName
        let copy = EntityTables(entity: staged)
        let columns = (["\"id\""] + names).joined(separator: ", ")
        let sources = (["e.\"id\""] + entity.attributes.map { $0.name == converted?.attribute ? converted?.source.value ?? "NULL" : "e." + Self.q($0.name) }).joined(separator: ", ")
        let from = "\(table) AS e" + (converted?.source.join ?? "")
        let name = entity.tableName.replacingOccurrences(of: "'", with: "''"), stagedName = staged.tableName.replacingOccurrences(of: "'", with: "''")
        return [
            copy.createTable,
            "INSERT INTO \(copy.table) (\(columns)) SELECT \(sources) FROM \(from) ORDER BY e.\"id\"",
            "DELETE FROM sqlite_sequence WHERE name = '\(stagedName)'",
            "INSERT INTO sqlite_sequence (name, seq) SELECT '\(stagedName)', seq FROM sqlite_sequence WHERE name = '\(name)'",
            "DROP TABLE \(table)",
            "ALTER TABLE \(copy.table) RENAME TO \(table)",
            createDeleteGuard,
        ] + indexes
    }
}
