import ImporterKit

/// The capture study's own schema SQL, so that its variants stay what they measure whatever
/// `EntitySchema` holds now (its `createStatements` follow the importer's current design).
///
/// - The entity table is the importer's, with or without the guard column of the current design.
/// - `legacyTriggers` and the `.withoutRowID` change table are the per-row trigger design as
///   `EntitySchema` had it before commit dd03968 (`git show dd03968^:Sources/ImporterKit/Store/EntitySchema.swift`).
/// - `.changeID`, `changeIndex`, `deleteGuard`, `recordInserts` and `clearInsertedUpdates` are the
///   current design (commit dd03968 and later).
struct CaptureDDL {
    /// How the change table stores its rows.
    enum ChangeTableLayout {
        /// Before dd03968: `WITHOUT ROWID`, `PRIMARY KEY ("transaction_number", "record_id")`.
        case withoutRowID
        /// Now: `"change_id" INTEGER PRIMARY KEY AUTOINCREMENT` (rowid table), plus `changeIndex`.
        case changeID
    }

    let entity: EntityDescription

    var table: String { q(entity.tableName) }
    var changeTableName: String { "importer_change_" + entity.tableName }
    var changeTable: String { q(changeTableName) }
    static let guardColumn = "importer_tracked"

    private func q(_ name: String) -> String { SQLIdentifier.quoted(name) }
    private func old(_ name: String) -> String { SQLIdentifier.quoted("old." + name) }
    private var names: [String] { entity.attributes.map { q($0.name) } }

    /// The entity table; `guarded` adds the current design's generated column calling `importer_writer()`.
    func entityTable(guarded: Bool) -> String {
        var columns = entity.attributes.map { "\(q($0.name)) \($0.type.sqlType)\($0.isOptional ? "" : " NOT NULL")" }
        if guarded { columns.append("\(q(Self.guardColumn)) INTEGER GENERATED ALWAYS AS (importer_writer()) STORED") }
        return """
            CREATE TABLE \(table) (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              \(columns.joined(separator: ",\n  ")),
              UNIQUE (\(entity.uniqueKey.map(q).joined(separator: ", ")))
            ) STRICT
            """
    }

    /// The change table in either layout; same value columns in both.
    func changeTable(_ layout: ChangeTableLayout) -> String {
        let values = entity.attributes.map { "\(q($0.name)) \($0.type.sqlType)" }
        let olds = entity.attributes.map { "\(old($0.name)) \($0.type.sqlType)" }
        let common = """
              "transaction_number" INTEGER NOT NULL,
              "record_id" INTEGER NOT NULL,
              "type" TEXT NOT NULL CHECK ("type" IN ('insert', 'update', 'delete')),
              "changed" TEXT,
              \((values + olds).joined(separator: ",\n  "))
            """
        switch layout {
        case .withoutRowID:
            return """
                CREATE TABLE \(changeTable) (
                \(common),
                  PRIMARY KEY ("transaction_number", "record_id")
                ) STRICT, WITHOUT ROWID
                """
        case .changeID:
            return """
                CREATE TABLE \(changeTable) (
                  "change_id" INTEGER PRIMARY KEY AUTOINCREMENT,
                \(common)
                ) STRICT
                """
        }
    }

    /// The columns both layouts have, in one order: what the cross-variant comparison selects.
    var comparedColumns: [String] {
        ["\"transaction_number\"", "\"record_id\"", "\"type\"", "\"changed\""] + names + entity.attributes.map { old($0.name) }
    }

    // MARK: Before dd03968: per-row triggers

    /// AFTER INSERT, AFTER UPDATE (only when a value differs), AFTER DELETE, each writing one change
    /// row numbered by `importer_transaction()`, and the BEFORE UPDATE OF "id" guard.
    var legacyTriggers: [String] {
        let columns = names.joined(separator: ", ")
        let newValues = names.map { "NEW.\($0)" }.joined(separator: ", ")
        let oldValues = names.map { "OLD.\($0)" }.joined(separator: ", ")
        let olds = entity.attributes.map { old($0.name) }.joined(separator: ", ")
        let differs = names.map { "OLD.\($0) IS NOT NEW.\($0)" }
        let changedList = "substr(" + zip(entity.attributes, names).map { attribute, name in
            "(CASE WHEN OLD.\(name) IS NOT NEW.\(name) THEN ',\(attribute.name)' ELSE '' END)"
        }.joined(separator: " || ") + ", 2)"
        let oldChanged = names.map { "CASE WHEN OLD.\($0) IS NOT NEW.\($0) THEN OLD.\($0) END" }.joined(separator: ", ")
        let t = ["insert", "update", "delete", "id"].map { q("importer_track_\(entity.tableName)_\($0)") }
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

    // MARK: Now: guards, set-based inserts

    /// The partial index of the current change table: updates and deletes only.
    var changeIndex: String {
        "CREATE INDEX \(q("importer_change_\(entity.tableName)_record")) ON \(changeTable) (\"record_id\", \"transaction_number\") WHERE \"type\" <> 'insert'"
    }

    /// Refuses deletes without an open importer transaction.
    var deleteGuard: String {
        """
        CREATE TRIGGER \(q("importer_guard_\(entity.tableName)_delete")) BEFORE DELETE ON \(table) BEGIN
          SELECT importer_transaction();
        END
        """
    }

    /// Records as inserts of transaction `?1` every record with an id above `?2`, with its values now.
    var recordInserts: String {
        let columns = names.joined(separator: ", ")
        return """
            INSERT INTO \(changeTable) ("transaction_number", "record_id", "type", \(columns))
            SELECT ?1, "id", 'insert', \(columns) FROM \(table) WHERE "id" > ?2 ORDER BY "id"
            """
    }

    /// Drops the update rows written since change `?1` for records with an id above `?2` (records
    /// the load inserted, then changed again).
    var clearInsertedUpdates: String {
        "DELETE FROM \(changeTable) WHERE \"change_id\" > ?1 AND \"record_id\" > ?2"
    }

    /// The last id an AUTOINCREMENT table `?1` assigned.
    static let lastAssignedID = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?1), 0)"

    /// What each variant's schema is, for the study's output.
    static let summary = [
        "schemas (the study's own DDL, CaptureDDL.swift):",
        "  none: entity table only (no guard column)",
        "  triggers: per-row AFTER INSERT / AFTER UPDATE … WHEN <a value differs> / AFTER DELETE triggers + BEFORE UPDATE OF \"id\" guard,",
        "    as before dd03968, writing the OLD change table: WITHOUT ROWID, PRIMARY KEY (transaction_number, record_id)",
        "  app-side rows, session: the same OLD WITHOUT ROWID change table, no triggers",
        "  importer (chosen): guard column importer_tracked (STORED, importer_writer()) + BEFORE DELETE guard (importer_transaction()),",
        "    no insert/update triggers, the CURRENT change table (change_id INTEGER PRIMARY KEY AUTOINCREMENT + partial index on",
        "    record_id WHERE type <> 'insert'); updates from a preupdate-hook buffer flushed after each upsert step, inserts by",
        "    one INSERT … SELECT at the end (after clearing update rows of records the load inserted)",
    ]
}
