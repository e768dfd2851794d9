import ImporterModel

/// A first load (`StagedUpsert.firstLoad`: no stored record before the run) in one statement: the
/// last occurrence of each staged key inserted in (first batch, key) order, the order SQLite writes
/// them in, and from the inserted rows (`RETURNING`, no second read of the entity table) one insert
/// change row per record, in id order.
///
/// `insertUniqueFirstLoad` is the same for a stage whose keys are all distinct, without the
/// dedupe (one sort instead of two and a window): each key's only occurrence is its last, and its
/// batch its first. Whether the keys are distinct is left to the entity table's unique key: a
/// repeated key fails the statement (SQLSTATE 23505; key attributes are required, so NULLs never
/// pass it), and the caller then rolls back to a savepoint and runs `insertFirstLoad`.
///
/// Invariant that makes recording the inserts here the same as recording them at the end of the
/// run (as SQLite does, and as re-loads do): with no stored record the run makes no other change to
/// this entity — no update, no sync delete (only ids up to the largest before the run are deleted),
/// no key drift (it pairs stored records) — so these are all its change rows, in SQLite's order,
/// with the values the records end the run with.
extension StagedUpsert {
    /// `$1`: the transaction number. Affects one change row per inserted record.
    var insertFirstLoad: String {
        insertAndRecord(from: "(\(lastOccurrences)) u", order: "\"importer_first\", \(keyOrder("u."))")
    }

    /// `$1`: the transaction number. Fails with a unique violation when a staged key repeats.
    var insertUniqueFirstLoad: String {
        insertAndRecord(from: "\(stage) u", order: "\"importer_batch\", \(keyOrder("u."))")
    }

    private func insertAndRecord(from source: String, order: String) -> String {
        let names = supplied.map(PostgresEntitySchema.q).joined(separator: ", ")
        let all = schema.names.joined(separator: ", ")
        return """
            WITH inserted AS (
              INSERT INTO \(schema.table) (\(names))
              SELECT \(names) FROM \(source) ORDER BY \(order)
              RETURNING "id", \(all)
            )
            INSERT INTO \(schema.changeTable) ("transaction_number", "record_id", "type", \(all))
            SELECT $1, "id", 'insert', \(all) FROM inserted ORDER BY "id"
            """
    }

    /// The entity's id sequence: its name, then its state (`last_value`, `is_called`), to put
    /// back after a failed `insertUniqueFirstLoad` (sequences ignore rollbacks), so that the
    /// records get the ids they would have had.
    var idSequence: String { "SELECT pg_get_serial_sequence($1, 'id')" }
    static func sequenceState(_ sequence: String) -> String { "SELECT last_value, is_called::int FROM \(sequence)" }
    static let restoreSequence = "SELECT setval($1::regclass, $2, $3 <> 0)"
}
