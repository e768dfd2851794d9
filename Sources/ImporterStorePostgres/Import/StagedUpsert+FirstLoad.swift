import ImporterModel

/// A first load (`StagedUpsert.firstLoad`: no stored record before the run) whose first batch was
/// staged already (a key repeated in it: nothing went straight into the table), in one statement:
/// the last occurrence of each staged key inserted in (first batch, key) order, the order SQLite
/// writes them in. Their insert changes are recorded at the close from the rows the run added, as on a
/// re-load (`EntityTables.recordInserts`): one `INSERT … RETURNING` feeding the change rows
/// costs more than the two statements, since the returned rows are kept and sorted again
/// (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
///
/// `insertUniqueFirstLoad` is the same for a stage whose keys are all distinct, without the
/// dedupe (one sort instead of two and a window): each key's only occurrence is its last, and its
/// batch its first. Whether the keys are distinct is left to the entity table's unique key: a
/// repeated key fails the statement (SQLSTATE 23505; key attributes are required, so NULLs never
/// pass it), and the caller then rolls back to a savepoint and runs `insertFirstLoad`.
extension StagedUpsert {
    var insertFirstLoad: String {
        insert(from: "(\(lastOccurrences)) u", order: "\"importer_first\", \(keyOrder("u."))")
    }

    /// Fails with a unique violation when a staged key repeats.
    var insertUniqueFirstLoad: String {
        insert(from: "\(stage) u", order: "\"importer_batch\", \(keyOrder("u."))")
    }

    private func insert(from source: String, order: String) -> String {
        let names = supplied.map(PostgresEntitySchema.q).joined(separator: ", ")
        return "INSERT INTO \(schema.table) (\(names)) SELECT \(names) FROM \(source) ORDER BY \(order)"
    }

    /// The entity's id sequence: its name, then its state (`last_value`, `is_called`), to put
    /// back after a failed `insertUniqueFirstLoad` (sequences ignore rollbacks), so that the
    /// records get the ids they would have had.
    var idSequence: String { "SELECT pg_get_serial_sequence($1, 'id')" }
    static func sequenceState(_ sequence: String) -> String { "SELECT last_value, is_called::int FROM \(sequence)" }
    static let restoreSequence = "SELECT setval($1::regclass, $2, $3 <> 0)"
}
