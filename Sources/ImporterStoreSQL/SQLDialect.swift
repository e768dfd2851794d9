import ImporterModel

/// What differs between the SQL the backends speak, as far as the SQL they share needs it: model
/// expressions (derived attributes), derived views (`ViewSQL`, `ViewDeltaApplier`), the store's
/// tables (`StoreTables`, `EntityTables`) and its bookkeeping (`SQLBackend`).
///
/// Invariant: whatever the dialect, a rendered query computes the values SQLite computes for the
/// same model, typed as `Value`s (integers, doubles, text, NULL): sums are doubles (0.0 over no
/// value), text orders by bytes, a division by zero is NULL.
package protocol SQLDialect: Sendable {
    /// The placeholder of the `n`th (1-based) bound parameter.
    func parameter(_ n: Int) -> String
    /// `lhs` equals `rhs`, NULL equal to NULL.
    func nullSafeEqual(_ lhs: String, _ rhs: String) -> String
    /// The column type that stores an attribute type.
    func columnType(_ type: AttributeType) -> String
    /// The sum of the non-null values as a double, 0.0 when there are none (SQLite's `total`).
    func total(_ value: String) -> String
    /// The sum of the signed values a replay adds to a stored sum, as a double, 0.0 when there are
    /// none: it may round as a running sum of doubles does (the sum it is added to is a double, and
    /// the in-memory replay, `ViewDeltaScan`, sums doubles too), so it need not be as exact as
    /// `total`.
    func deltaTotal(_ value: String) -> String
    /// The average of the non-null values as a double, NULL when there are none.
    func average(_ value: String) -> String
    /// Whether the comma-separated list `list` holds `word` (a validated name).
    func list(_ list: String, contains word: String) -> String
    /// `value` ordered for `min`/`max` as `Value.compare` orders it (text by bytes).
    func ordered(_ value: String, type: AttributeType) -> String
    /// A call of an expression function on rendered arguments.
    func call(_ function: Expression.Function, _ arguments: [String]) -> String
    /// `lhs / rhs`, NULL when `rhs` is 0.
    func divide(_ lhs: String, _ rhs: String) -> String
    /// A condition (comparison, AND, NOT…) used where a value is expected: 1, 0 or NULL.
    func value(ofCondition condition: String) -> String
    /// A value used where a condition is expected: true when non-zero.
    func condition(ofValue value: String) -> String
    /// `column` ordered by its bytes (SQLite's BINARY collation).
    func bytewise(_ column: String) -> String
    /// The distinct non-null values of `column` in a group, joined by commas.
    func distinctList(_ column: String) -> String
    /// Selects a handle of a row of a view table, and matches a row by a bound handle.
    var rowHandle: String { get }
    func matchRowHandle(_ parameter: String) -> String
    /// `column` is one of `integers`; `parameter` is the number of the parameter the dialect may
    /// bind them to (its value then among the returned arguments).
    func isOneOf(_ column: String, _ integers: [Int64], parameter: Int) -> (condition: String, arguments: [Value])

    /// What follows a `CREATE TABLE`'s column list (SQLite: `STRICT` typing, and `WITHOUT ROWID`
    /// for a table stored by its primary key).
    func tableOptions(withoutRowID: Bool) -> String
    /// The type and constraints of an integer primary key the database assigns in increasing
    /// order; `neverReused`: the ids of deleted rows are not assigned again.
    func generatedKey(neverReused: Bool) -> String
    /// The column type of `importer_metadata.value`, which holds text and integers.
    var metadataValueType: String { get }
    /// An integer as `importer_metadata` holds it (SQLite: an integer; PostgreSQL: its text).
    func metadataValue(_ integer: Int64) -> Value
    /// The column of `importer_entity` that orders entities as they were registered.
    var registrationOrder: String { get }
    /// The definition of `registrationOrder`'s column, when the table must declare it.
    var registrationColumn: String? { get }
    /// Whether a column added with a constant DEFAULT holds it in every existing row without
    /// rewriting them, the DEFAULT then droppable (PostgreSQL 11 on); SQLite keeps a DEFAULT in
    /// the table's definition, so a fill there is an UPDATE.
    var addsFilledColumnsInPlace: Bool { get }
    /// Whether a retype converts each distinct value once and finds it again by value
    /// (`RetypeLookup`), or converts row by row.
    var retypesDistinctValues: Bool { get }
    /// What a retype finds a stored value of `type` in `column` by: the value itself, unless the
    /// database counts as equal values the model's conversion tells apart (PostgreSQL's -0 and 0).
    func retypeKey(_ column: String, type: AttributeType) -> String
    /// The SQL type of `retypeKey`'s values.
    func retypeKeyType(_ type: AttributeType) -> String
    /// `CREATE INDEX name ON table (column)`, for equality lookups only.
    func lookupIndex(_ name: String, on table: String, column: String) -> String
}

extension SQLDialect {
    /// The name as a quoted identifier (both dialects quote alike). Callers pass validated names;
    /// quotes are doubled anyway.
    package func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `CREATE TABLE name (…)`, one column (or table constraint) a line.
    package func createTable(_ name: String, _ columns: [String], withoutRowID: Bool = false, ifNotExists: Bool = false) -> String {
        "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(name) (\n  \(columns.joined(separator: ",\n  "))\n)" + tableOptions(withoutRowID: withoutRowID)
    }
}
