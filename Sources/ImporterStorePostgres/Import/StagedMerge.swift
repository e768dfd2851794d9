import ImporterModel

/// Feeds that supply different attributes of one entity in one run (an API answer with and one
/// without its velocity components): each set of attributes is staged in a table of its own, and
/// before the apply the parts are merged into one stage of the union of their attributes, one row
/// per key, that `StagedUpsert` applies as it applies one feed's stage:
/// - each attribute takes the value of the chosen staged row that supplied it (the last, feed
///   order `importer_ord`, or a feed's first, `StagedUpsert.chosenFirst`), as SQLite's upserter
///   lets the last occurrence win attribute by attribute;
/// - an attribute no row of that key supplied takes the stored record's value (never distinct from
///   it, so neither written nor recorded as changed), NULL for a new key;
/// - `importer_ord` is the key's last occurrence, `importer_batch` its first batch (the order of
///   its change rows and of new ids).
struct StagedMerge {
    let entity: EntityDescription
    /// The attributes (indices) and staging table of each part, in the order they were met.
    let parts: [(columns: [Int], stage: String)]
    let merged: String
    /// The ORDER BY list putting a key's chosen row first (`StagedUpsert.chosenFirst`, alias `a.`).
    let chosenFirst: String

    /// Every attribute some part supplies, in entity order.
    var union: [Int] { Set(parts.flatMap(\.columns)).sorted() }

    private func q(_ name: String) -> String { PostgresEntitySchema.q(name) }
    private func name(_ index: Int) -> String { entity.attributes[index].name }
    private func supplied(_ index: Int) -> String { q("importer_has_\(index)") }

    /// One part's rows with every union attribute (NULL where it supplies none) and flags saying
    /// which it supplied.
    private func rows(of part: (columns: [Int], stage: String)) -> String {
        let values = union.map { index in
            part.columns.contains(index)
                ? q(name(index))
                : "CAST(NULL AS \(PostgresEntitySchema.sqlType(entity.attributes[index].type))) AS \(q(name(index)))"
        }
        let flags = union.map { "\(part.columns.contains($0) ? "TRUE" : "FALSE") AS \(supplied($0))" }
        return "SELECT \"importer_ord\", \"importer_batch\", \"importer_origin\", \"importer_at\", \((values + flags).joined(separator: ", ")) FROM \(part.stage)"
    }

    var createMerged: String {
        let keys = entity.uniqueKey.map(q)
        let keyIndices = Set(entity.uniqueKey.compactMap { key in entity.attributes.firstIndex { $0.name == key } })
        let values = union.map { index -> String in
            let column = q(name(index))
            guard !keyIndices.contains(index) else { return "a.\(column)" }
            return """
                CASE WHEN bool_or(a.\(supplied(index))) THEN (array_agg(a.\(column) ORDER BY \(chosenFirst)) FILTER (WHERE a.\(supplied(index))))[1] \
                ELSE min(e.\(column)) END AS \(column)
                """
        }
        return """
            CREATE TEMP TABLE \(merged) ON COMMIT DROP AS
            SELECT max(a."importer_ord") AS "importer_ord", min(a."importer_batch") AS "importer_batch",
              (array_agg(a."importer_origin" ORDER BY \(chosenFirst)))[1] AS "importer_origin", 0::bigint AS "importer_at", \(values.joined(separator: ", "))
            FROM (\(parts.map(rows(of:)).joined(separator: " UNION ALL "))) a
            LEFT JOIN \(PostgresEntitySchema(entity: entity).table) e ON \(keys.map { "e.\($0) = a.\($0)" }.joined(separator: " AND "))
            GROUP BY \(keys.map { "a.\($0)" }.joined(separator: ", "))
            """
    }
}
