import ImporterModel

/// Key drift on PostgreSQL: the candidates are read in two queries (the stored records the run did
/// not write, the records it inserted), paired in memory (`KeyDriftPairing`), and the pairs applied
/// set-based through a temporary table: one update change row per pair (the key among the changed
/// attributes), the inserted rows deleted, the stored rows given their key and supplied values,
/// and marked as written in the upsert's `seen` table (so sync does not delete them).
struct DriftRekey {
    let entity: EntityDescription
    let drift: KeyDrift
    let upsert: StagedUpsert

    private var schema: PostgresEntitySchema { PostgresEntitySchema(entity: entity) }
    private var supplied: [String] { upsert.columns.map { entity.attributes[$0].name } }
    static let pairs = "importer_drift_pairs"

    /// `$1`: the largest id before the run. Columns: id, drifting attribute, match attributes.
    func candidates(inserted: Bool) -> String {
        let match = (entity.uniqueKey.filter { $0 != drift.attribute } + drift.agree).map { ", " + PostgresEntitySchema.q($0) }.joined()
        let condition = inserted ? "e.\"id\" > $1" : "e.\"id\" <= $1 AND \(upsert.unseen("e"))"
        return "SELECT e.\"id\", e.\(PostgresEntitySchema.q(drift.attribute))\(match) FROM \(schema.table) e WHERE \(condition)"
    }

    var createPairs: String {
        "CREATE TEMP TABLE IF NOT EXISTS \(Self.pairs) (\"stored\" bigint, \"new\" bigint, \"ord\" bigint) ON COMMIT DROP"
    }

    private func distinct(_ name: String) -> String {
        "n.\(PostgresEntitySchema.q(name)) IS DISTINCT FROM s.\(PostgresEntitySchema.q(name))"
    }

    /// The update changes of the pairs, kept until the entity closes: SQLite records them then
    /// (after the sync deletes), and change order is part of the report.
    var changes: String { "importer_drift_changes_\(upsert.stage.split(separator: "_").last ?? "0")" }

    private var changeColumns: [String] { schema.names + entity.attributes.map { schema.old($0.name) } }

    /// `$1`: the transaction number; records the kept changes (at the entity's close).
    var recordChanges: String {
        let columns = changeColumns.joined(separator: ", ")
        return """
            INSERT INTO \(schema.changeTable) (\(schema.changeHead), \(schema.changed), \(columns))
            SELECT $1, "importer_record_id", 'update', "importer_changed", \(columns) FROM \(changes) ORDER BY "importer_ord"
            """
    }

    /// Statements in order: keep the changes, stash the inserted rows, delete them, re-key, mark.
    var statements: [String] {
        let q = PostgresEntitySchema.q
        let changed = supplied.map { "CASE WHEN \(distinct($0)) THEN \(PostgresEntitySchema.literal($0)) END" }
        let news = entity.attributes.map { (supplied.contains($0.name) ? "n.\(q($0.name))" : "s.\(q($0.name))") + " AS \(q($0.name))" }
        let olds = entity.attributes.map {
            (supplied.contains($0.name) ? "CASE WHEN \(distinct($0.name)) THEN s.\(q($0.name)) END" : "NULL::\(PostgresEntitySchema.sqlType($0.type))")
                + " AS \(schema.old($0.name))"
        }
        let assignments = supplied.map { "\(q($0)) = n.\(q($0))" }.joined(separator: ", ")
        return [
            """
            CREATE TEMP TABLE \(changes) ON COMMIT DROP AS
            SELECT p."ord" AS "importer_ord", s."id" AS "importer_record_id", concat_ws(',', \(changed.joined(separator: ", "))) AS "importer_changed",
              \((news + olds).joined(separator: ", "))
            FROM \(Self.pairs) p JOIN \(schema.table) s ON s."id" = p."stored" JOIN \(schema.table) n ON n."id" = p."new"
            """,
            "CREATE TEMP TABLE importer_drift_new ON COMMIT DROP AS SELECT p.\"stored\" AS \"importer_stored\", n.* FROM \(Self.pairs) p JOIN \(schema.table) n ON n.\"id\" = p.\"new\"",
            "DELETE FROM \(schema.table) WHERE \"id\" IN (SELECT \"new\" FROM \(Self.pairs))",
            "UPDATE \(schema.table) s SET \(assignments) FROM importer_drift_new n WHERE s.\"id\" = n.\"importer_stored\"",
            "INSERT INTO \(upsert.seen) (\"id\") SELECT \"stored\" FROM \(Self.pairs) ON CONFLICT DO NOTHING",
            "DROP TABLE importer_drift_new",
        ]
    }
}
