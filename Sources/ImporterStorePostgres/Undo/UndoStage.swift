import ImporterModel

/// The set-based SQL of an undo's restores and put-backs on PostgreSQL (`PostgresUndoTransaction`):
/// the records, `PostgresUndoTransaction.chunk` at a time, are COPied into a temporary table
/// (`importer_undo_N`: `importer_ord`, the call order; `id`; each attribute and `importer_has_I`,
/// 1 when the call gave attribute I) and applied in a few statements, never one round trip per
/// record. The change rows are those the per-record calls would write, in call order.
struct UndoStage {
    let entity: EntityDescription
    let table: String

    var schema: PostgresEntitySchema { PostgresEntitySchema(entity: entity) }
    private func q(_ name: String) -> String { PostgresEntitySchema.q(name) }
    private func has(_ index: Int) -> String { "r.\(q("importer_has_\(index)")) = 1" }

    var columns: [String] {
        ["importer_ord", "id"] + entity.attributes.indices.flatMap { [entity.attributes[$0].name, "importer_has_\($0)"] }
    }

    var create: String {
        let definitions = entity.attributes.enumerated().map { index, attribute in
            "\(q(attribute.name)) \(PostgresEntitySchema.sqlType(attribute.type)), \(q("importer_has_\(index)")) bigint NOT NULL"
        }
        return "CREATE TEMP TABLE IF NOT EXISTS \(table) (\"importer_ord\" bigint NOT NULL, \"id\" bigint NOT NULL, \(definitions.joined(separator: ", "))) ON COMMIT DROP"
    }

    var clear: String { "TRUNCATE \(table)" }

    /// Attribute `index` of the call differs from the stored record's.
    private func differs(_ index: Int) -> String {
        let name = q(entity.attributes[index].name)
        return "(\(has(index)) AND r.\(name) IS DISTINCT FROM e.\(name))"
    }

    private var anyDiffers: String { entity.attributes.indices.map(differs).joined(separator: " OR ") }

    /// `$1`: the undo's transaction number. One update change per restored record that changes.
    var recordRestores: String {
        let changed = entity.attributes.indices.map { "CASE WHEN \(differs($0)) THEN \(PostgresEntitySchema.literal(entity.attributes[$0].name)) END" }
        let news = entity.attributes.indices.map { "CASE WHEN \(has($0)) THEN r.\(q(entity.attributes[$0].name)) ELSE e.\(q(entity.attributes[$0].name)) END" }
        let olds = entity.attributes.indices.map { "CASE WHEN \(differs($0)) THEN e.\(q(entity.attributes[$0].name)) END" }
        let targets = schema.names + entity.attributes.map { schema.old($0.name) }
        return """
            INSERT INTO \(schema.changeTable) (\(schema.changeHead), \(schema.changed), \(targets.joined(separator: ", ")))
            SELECT $1, e."id", 'update', concat_ws(',', \(changed.joined(separator: ", "))), \((news + olds).joined(separator: ", "))
            FROM \(table) r JOIN \(schema.table) e ON e."id" = r."id" WHERE \(anyDiffers) ORDER BY r."importer_ord"
            """
    }

    var applyRestores: String {
        let assignments = entity.attributes.indices.map { index in
            let name = q(entity.attributes[index].name)
            return "\(name) = CASE WHEN \(has(index)) THEN r.\(name) ELSE e.\(name) END"
        }
        return "UPDATE \(schema.table) e SET \(assignments.joined(separator: ", ")) FROM \(table) r WHERE e.\"id\" = r.\"id\" AND (\(anyDiffers))"
    }

    /// The first record to put back whose key another record holds: its key values, then the holder's id.
    var takenKey: String {
        let keys = entity.uniqueKey.map(q)
        return """
            SELECT \(keys.map { "r.\($0)" }.joined(separator: ", ")), e."id" FROM \(table) r
            JOIN \(schema.table) e ON \(keys.map { "e.\($0) = r.\($0)" }.joined(separator: " AND "))
            ORDER BY r."importer_ord" LIMIT 1
            """
    }

    var applyReinserts: String {
        let names = (["id"] + entity.attributes.map(\.name)).map(q).joined(separator: ", ")
        return "INSERT INTO \(schema.table) (\(names)) SELECT \(names) FROM \(table) ORDER BY \"importer_ord\""
    }
}
