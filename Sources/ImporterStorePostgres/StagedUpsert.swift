import ImporterModel

/// The set-based statements that apply one entity's staged feed rows to its table, all computed
/// from the staging table (`importer_stage_N`: the supplied attributes plus `importer_ord`, the
/// feed order) in a few statements, never one round trip per record:
/// - `createDiff`: the last occurrence of each key (`DISTINCT ON`), the batch of its first
///   occurrence and the stored record's id, by a join on the key; changes and new ids follow
///   (first batch, key), the order SQLite writes them in (it sorts each batch by key);
/// - `recordUpdates`: one update change row per stored record whose supplied attributes differ
///   (`IS DISTINCT FROM`), with the changed names in entity order and their old values;
/// - `applyUpdates`: the same records updated; unchanged rows are not written;
/// - `applyInserts`: the new keys inserted in feed order (their insert changes are recorded at the
///   end of the run from the rows left, like SQLite);
/// - `markSeen`: the stored records the feed wrote, for the unchanged count and the sync anti-join.
struct StagedUpsert {
    let entity: EntityDescription
    /// Indices of the supplied attributes.
    let columns: [Int]
    let stage: String
    let diff: String
    let seen: String

    private var schema: PostgresEntitySchema { PostgresEntitySchema(entity: entity) }
    private static let oldID = "\"importer_old_id\""
    private var supplied: [String] { columns.map { entity.attributes[$0].name } }
    private var keys: [String] { entity.uniqueKey.map(PostgresEntitySchema.q) }
    /// The key columns of `alias` as an ORDER BY list; text in byte order (`COLLATE "C"`), as SQLite sorts it.
    private func keyOrder(_ alias: String) -> String {
        entity.uniqueKey.map { name in
            let text = [.text, .date, .datetime].contains(entity.attribute(named: name)?.type)
            return "\(alias)\(PostgresEntitySchema.q(name))" + (text ? " COLLATE \"C\"" : "")
        }.joined(separator: ", ")
    }

    var createStage: String {
        let definitions = columns.map { "\(PostgresEntitySchema.q(entity.attributes[$0].name)) \(PostgresEntitySchema.sqlType(entity.attributes[$0].type))" }
        return "CREATE TEMP TABLE \(stage) (\"importer_ord\" bigint NOT NULL, \"importer_batch\" bigint NOT NULL, \(definitions.joined(separator: ", "))) ON COMMIT DROP"
    }

    var createSeen: String { "CREATE TEMP TABLE \(seen) (\"id\" bigint PRIMARY KEY) ON COMMIT DROP" }

    var stageColumns: [String] { ["importer_ord", "importer_batch"] + supplied }

    var createDiff: String {
        let keyList = keys.map { "s.\($0)" }.joined(separator: ", ")
        let join = keys.map { "e.\($0) = u.\($0)" }.joined(separator: " AND ")
        return """
            CREATE TEMP TABLE \(diff) ON COMMIT DROP AS
            SELECT u.*, e."id" AS \(Self.oldID) FROM (
              SELECT DISTINCT ON (\(keyList)) s.*, min(s."importer_batch") OVER (PARTITION BY \(keyList)) AS "importer_first"
              FROM \(stage) s ORDER BY \(keyList), s."importer_ord" DESC
            ) u LEFT JOIN \(schema.table) e ON \(join)
            """
    }

    private func distinct(_ name: String) -> String {
        "u.\(PostgresEntitySchema.q(name)) IS DISTINCT FROM e.\(PostgresEntitySchema.q(name))"
    }

    private var anyDistinct: String { supplied.map(distinct).joined(separator: " OR ") }

    /// `$1`: the transaction number.
    var recordUpdates: String {
        let changed = supplied.map { "CASE WHEN \(distinct($0)) THEN '\($0)' END" }
        let news = entity.attributes.map { supplied.contains($0.name) ? "u.\(PostgresEntitySchema.q($0.name))" : "e.\(PostgresEntitySchema.q($0.name))" }
        let olds = entity.attributes.map { supplied.contains($0.name) ? "CASE WHEN \(distinct($0.name)) THEN e.\(PostgresEntitySchema.q($0.name)) END" : "NULL" }
        let columns = schema.names + entity.attributes.map { PostgresEntitySchema.old($0.name) }
        return """
            INSERT INTO \(schema.changeTable) ("transaction_number", "record_id", "type", "changed", \(columns.joined(separator: ", ")))
            SELECT $1, e."id", 'update', concat_ws(',', \(changed.joined(separator: ", "))), \((news + olds).joined(separator: ", "))
            FROM \(diff) u JOIN \(schema.table) e ON e."id" = u.\(Self.oldID)
            WHERE \(anyDistinct) ORDER BY u."importer_first", \(keyOrder("u."))
            """
    }

    var applyUpdates: String {
        let assignments = supplied.map { "\(PostgresEntitySchema.q($0)) = u.\(PostgresEntitySchema.q($0))" }
        return """
            UPDATE \(schema.table) e SET \(assignments.joined(separator: ", ")) FROM \(diff) u
            WHERE e."id" = u.\(Self.oldID) AND (\(anyDistinct))
            """
    }

    var applyInserts: String {
        let names = supplied.map(PostgresEntitySchema.q).joined(separator: ", ")
        return """
            INSERT INTO \(schema.table) (\(names))
            SELECT \(names) FROM \(diff) WHERE \(Self.oldID) IS NULL ORDER BY "importer_first", \(keyOrder(""))
            """
    }

    var markSeen: String {
        "INSERT INTO \(seen) (\"id\") SELECT \(Self.oldID) FROM \(diff) WHERE \(Self.oldID) IS NOT NULL ON CONFLICT DO NOTHING"
    }
}
