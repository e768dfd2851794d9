import ImporterModel

/// A first load's entity table without its unique indexes while records are COPied straight into
/// it (`copyDirect`): the primary key and the model's unique key are dropped before the first
/// direct COPY and added back, under their names and definitions, before anything reads the table
/// by key (`PostgresImportTransaction.apply`); likewise the change table's primary key while the
/// load's insert changes are written, when they outnumber the change rows kept before. Building an
/// index from the loaded rows costs about half of maintaining it row by row (figures:
/// Docs/PERFORMANCE.md, "Measurements behind the code").
///
/// Invariants: used only on an entity table empty before the run, and only while `DirectKeys`
/// admits the batches, so no key is written twice (change ids come from the table's identity);
/// the keys are back before the transaction can commit, and a failure in between rolls the drop
/// back with it. A table another table's foreign key references keeps its keys. The drop holds the table's `ACCESS EXCLUSIVE` lock to the commit: readers of that
/// table (of the change table: history readers of that entity, once the load closes) wait for the
/// first load instead of seeing it empty.
struct DeferredKeys {
    /// The table, quoted.
    let table: String
    /// Each unique constraint's name and definition (`pg_get_constraintdef`), primary key first.
    let constraints: [(name: String, definition: String)]

    /// The table's primary and unique constraints, and the foreign keys that reference it
    /// (parameter 1: the quoted table name).
    static let listConstraints = """
        SELECT contype::text, conname::text, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid = $1::regclass AND contype IN ('p', 'u') OR confrelid = $1::regclass
        ORDER BY contype, conname
        """

    /// The keys to defer, from `listConstraints`' rows; nil when there is nothing to defer or a
    /// foreign key references the table.
    init?(table: String, rows: [[Value]]) {
        var constraints: [(name: String, definition: String)] = []
        for row in rows {
            guard row.count == 3, case .text(let type) = row[0], type != "f",
                  case .text(let name) = row[1], case .text(let definition) = row[2] else { return nil }
            constraints.append((name, definition))
        }
        guard !constraints.isEmpty else { return nil }
        self.table = table
        self.constraints = constraints
    }

    var drop: String {
        "ALTER TABLE \(table) " + constraints.map { "DROP CONSTRAINT \(PostgresEntitySchema.q($0.name))" }.joined(separator: ", ")
    }

    var restore: String {
        "ALTER TABLE \(table) " + constraints.map { "ADD CONSTRAINT \(PostgresEntitySchema.q($0.name)) \($0.definition)" }.joined(separator: ", ")
    }

    /// For the index builds' sorts, for this transaction only: server memory, not importer's.
    static let maintenanceWorkMem = "SET LOCAL maintenance_work_mem = '256MB'"
}
