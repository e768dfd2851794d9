/// The SQL that stores one entity and tracks its history: the entity table, its change table and
/// the triggers that write change rows.
///
/// History is captured by triggers (chosen by measurement, see README "History capture"): every
/// write to an entity table, whatever statement makes it, writes its change row in the same SQLite
/// transaction. The triggers call `importer_transaction()`, a function only importer's own
/// connections define, and only while an import is open: other programs' writes to tracked tables
/// are refused ("no such function"), never silently lost.
///
/// Change table layout (`importer_change_<table>`), one row per changed record per transaction:
/// - `transaction_number`, `record_id`, `type` (`insert`, `update`, `delete`);
/// - `changed`: for updates, the changed attribute names, comma-separated, in entity order;
/// - one column per attribute: the values after the change (inserts, updates) or before it (deletes);
/// - one `old.<attribute>` column per attribute: for updates, the old value of each changed attribute.
public struct EntitySchema: Sendable {
    public let entity: EntityDescription

    public init(entity: EntityDescription) {
        self.entity = entity
    }

    public var table: String { SQLIdentifier.quoted(entity.tableName) }
    public var changeTableName: String { "importer_change_" + entity.tableName }
    public var changeTable: String { SQLIdentifier.quoted(changeTableName) }

    static func q(_ name: String) -> String { SQLIdentifier.quoted(name) }
    static func old(_ name: String) -> String { SQLIdentifier.quoted("old." + name) }

    public var createStatements: [String] {
        [createTable, createChangeTable] + triggers
    }

    /// The entity table alone (benchmarks build their baseline on it).
    public var createTableStatement: String { createTable }

    var createTable: String {
        let columns = entity.attributes.map { "\(Self.q($0.name)) \($0.type.sqlType)\($0.isOptional ? "" : " NOT NULL")" }
        let key = entity.uniqueKey.map(Self.q).joined(separator: ", ")
        return """
            CREATE TABLE \(table) (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              \(columns.joined(separator: ",\n  ")),
              UNIQUE (\(key))
            ) STRICT
            """
    }

    var createChangeTable: String {
        let values = entity.attributes.map { "\(Self.q($0.name)) \($0.type.sqlType)" }
        let olds = entity.attributes.map { "\(Self.old($0.name)) \($0.type.sqlType)" }
        return """
            CREATE TABLE \(changeTable) (
              "transaction_number" INTEGER NOT NULL,
              "record_id" INTEGER NOT NULL,
              "type" TEXT NOT NULL CHECK ("type" IN ('insert', 'update', 'delete')),
              "changed" TEXT,
              \((values + olds).joined(separator: ",\n  ")),
              PRIMARY KEY ("transaction_number", "record_id")
            ) STRICT, WITHOUT ROWID
            """
    }

    var triggerNames: [String] {
        ["insert", "update", "delete", "id"].map { SQLIdentifier.quoted("importer_track_\(entity.tableName)_\($0)") }
    }

    var dropTriggers: [String] { triggerNames.map { "DROP TRIGGER IF EXISTS \($0)" } }

    var triggers: [String] {
        let names = entity.attributes.map { Self.q($0.name) }
        let columns = names.joined(separator: ", ")
        let newValues = names.map { "NEW.\($0)" }.joined(separator: ", ")
        let oldValues = names.map { "OLD.\($0)" }.joined(separator: ", ")
        let olds = entity.attributes.map { Self.old($0.name) }.joined(separator: ", ")
        let differs = names.map { "OLD.\($0) IS NOT NEW.\($0)" }
        let changedList = "substr(" + zip(entity.attributes, names).map { attribute, name in
            "(CASE WHEN OLD.\(name) IS NOT NEW.\(name) THEN ',\(attribute.name)' ELSE '' END)"
        }.joined(separator: " || ") + ", 2)"
        let oldChanged = names.map { "CASE WHEN OLD.\($0) IS NOT NEW.\($0) THEN OLD.\($0) END" }.joined(separator: ", ")
        let t = triggerNames
        return [
            """
            CREATE TRIGGER \(t[0]) AFTER INSERT ON \(table) BEGIN
              INSERT INTO \(changeTable) ("transaction_number", "record_id", "type", \(columns))
              VALUES (importer_transaction(), NEW."id", 'insert', \(newValues));
            END
            """,
            """
            CREATE TRIGGER \(t[1]) AFTER UPDATE ON \(table) WHEN \(differs.joined(separator: " OR ")) BEGIN
              INSERT INTO \(changeTable) ("transaction_number", "record_id", "type", "changed", \(columns), \(olds))
              VALUES (importer_transaction(), NEW."id", 'update', \(changedList), \(newValues), \(oldChanged));
            END
            """,
            """
            CREATE TRIGGER \(t[2]) AFTER DELETE ON \(table) BEGIN
              INSERT INTO \(changeTable) ("transaction_number", "record_id", "type", \(columns))
              VALUES (importer_transaction(), OLD."id", 'delete', \(oldValues));
            END
            """,
            """
            CREATE TRIGGER \(t[3]) BEFORE UPDATE OF "id" ON \(table) WHEN OLD."id" IS NOT NEW."id" BEGIN
              SELECT RAISE(ABORT, 'importer: a record id never changes');
            END
            """,
        ]
    }

    /// Statements that add an optional attribute to an existing store (the only model change that
    /// cannot lose data). Triggers must be recreated afterwards.
    func addColumn(_ attribute: AttributeDescription) -> [String] {
        [
            "ALTER TABLE \(table) ADD COLUMN \(Self.q(attribute.name)) \(attribute.type.sqlType)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(Self.q(attribute.name)) \(attribute.type.sqlType)",
            "ALTER TABLE \(changeTable) ADD COLUMN \(Self.old(attribute.name)) \(attribute.type.sqlType)",
        ]
    }
}
