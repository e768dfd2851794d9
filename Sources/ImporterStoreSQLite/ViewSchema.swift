import CSQLite
import Foundation
import ImporterModel

/// The SQL of one derived view: its table, the full recomputation, and the delta of a range of
/// history changes per group.
///
/// The view table holds one row per group: the group columns, one column per aggregate, and
/// `importer_rows` (records in the group; the group row is deleted when it reaches 0). Averages
/// keep their running sum and count in `importer_sum_<name>` and `importer_count_<name>`.
/// Expressions (derived attributes) are rendered both over the entity table (rebuild) and over
/// history images (replay), so both paths compute groups identically.
struct ViewSchema {
    let view: ViewDefinition
    let entity: EntityDescription

    var table: String { SQLIdentifier.quoted(view.name) }
    static let rows = "importer_rows"

    static func q(_ name: String) -> String { SQLIdentifier.quoted(name) }

    func type(of name: String) -> AttributeType {
        entity.attribute(named: name)?.type ?? entity.derivedAttribute(named: name)?.type ?? .text
    }

    /// The columns written for each aggregate (an average keeps its sum and count too).
    func storageColumns(_ aggregate: Aggregate) -> [String] { ViewDefinition.storageColumns(aggregate) }

    var createStatements: [String] {
        var columns = view.groupBy.map { "\(Self.q($0)) \(type(of: $0).sqlType)" }
        for aggregate in view.aggregates {
            switch aggregate.function {
            case .count: columns.append("\(Self.q(aggregate.name)) INTEGER NOT NULL")
            case .sum: columns.append("\(Self.q(aggregate.name)) REAL NOT NULL")
            case .min, .max: columns.append("\(Self.q(aggregate.name)) \(aggregate.attribute.map { type(of: $0).sqlType } ?? "REAL")")
            case .avg:
                columns.append("\(Self.q(aggregate.name)) REAL")
                columns.append("\(Self.q("importer_sum_\(aggregate.name)")) REAL NOT NULL")
                columns.append("\(Self.q("importer_count_\(aggregate.name)")) INTEGER NOT NULL")
            }
        }
        columns.append("\(Self.q(Self.rows)) INTEGER NOT NULL")
        return [
            "CREATE TABLE \(table) (\n  \(columns.joined(separator: ",\n  "))\n)",
            "CREATE UNIQUE INDEX \(Self.q("importer_group_\(view.name)")) ON \(table) (\(view.groupBy.map(Self.q).joined(separator: ", ")))",
        ]
    }

    var dropStatement: String { "DROP TABLE IF EXISTS \(table)" }

    /// `SELECT <groups>, <aggregate columns...>, importer_rows` over `source`, grouped, where
    /// `column` renders a stored attribute of a record.
    private func aggregateQuery(from source: String, where condition: String?) -> String {
        let groups = view.groupBy.compactMap { entity.expression(for: $0)?.sql() }
        var selections = zip(view.groupBy, groups).map { "\($1) AS \(Self.q($0))" }
        for aggregate in view.aggregates {
            let argument = aggregate.attribute.flatMap { entity.expression(for: $0)?.sql() }
            switch aggregate.function {
            case .count: selections.append(argument.map { "count(\($0))" } ?? "count(*)")
            case .sum: selections.append("total(\(argument ?? "NULL"))")
            case .min: selections.append("min(\(argument ?? "NULL"))")
            case .max: selections.append("max(\(argument ?? "NULL"))")
            case .avg:
                let value = argument ?? "NULL"
                selections += ["avg(\(value))", "total(\(value))", "count(\(value))"]
            }
        }
        selections.append("count(*)")
        var sql = "SELECT \(selections.joined(separator: ", ")) FROM \(source)"
        if let condition { sql += " WHERE \(condition)" }
        return sql + " GROUP BY \(groups.joined(separator: ", "))"
    }

    var allColumns: [String] { view.storageColumns }

    /// Recomputes every group from the entity table into the view table (emptied first).
    var rebuild: [String] {
        [
            "DELETE FROM \(table)",
            "INSERT INTO \(table) (\(allColumns.map(Self.q).joined(separator: ", "))) \(aggregateQuery(from: SQLIdentifier.quoted(entity.tableName), where: nil))",
        ]
    }

    /// The full recomputation as a query (for `verify`).
    var recomputation: String { aggregateQuery(from: SQLIdentifier.quoted(entity.tableName), where: nil) }

    /// The full recomputation of the groups equal to the bound group values (parameters 1...n),
    /// for min/max groups that lost their extreme.
    var recomputeGroup: String {
        let match = view.groupBy.enumerated().compactMap { index, name in
            entity.expression(for: name).map { "\($0.sql()) IS ?\(index + 1)" }
        }.joined(separator: " AND ")
        return aggregateQuery(from: SQLIdentifier.quoted(entity.tableName), where: match)
    }

    /// Per group touched by the change rows with ids in `?1...?2`: the change in record count and
    /// in each aggregate. Columns: groups, `d_rows`, then per aggregate: count → `d`; sum → `d`;
    /// avg → `d_sum`, `d_count`; min/max → `added`, `removed` (the extreme among values entering
    /// and among values leaving the group).
    ///
    /// Each record contributes its net change over the range: the before-image of its first
    /// relevant change leaves its group, the after-image of its last one enters a group. A record
    /// inserted and deleted inside the range contributes nothing, so every value that enters is
    /// present at the end of the range (which makes the min/max rule in `ViewMaintainer` exact).
    /// The per-group delta of the change rows `?1...?2`. `oneTransaction`: the range lies in one
    /// transaction, which holds at most one change row per record, so each row is both the first
    /// and the last change of its record (no grouping by record, measured ~40 % of the query).
    func delta(oneTransaction: Bool) -> String {
        let schema = EntitySchema(entity: entity)
        let stored = view.storedAttributes(of: entity).sorted()
        // Update rows that touch none of the view's attributes change nothing in it.
        let touches = stored.map { "instr(',' || \"changed\" || ',', ',\($0),') > 0" }
        let relevantUpdate = touches.isEmpty ? "0" : "(\(touches.joined(separator: " OR ")))"
        let before = stored.map { name in
            "CASE WHEN c.\"type\" = 'update' AND instr(',' || c.\"changed\" || ',', ',\(name),') > 0 THEN c.\(EntitySchema.old(name)) ELSE c.\(Self.q(name)) END AS \(Self.q(name))"
        }
        let after = stored.map { "c.\(Self.q($0)) AS \(Self.q($0))" }
        let ends = oneTransaction ? """
            SELECT "change_id" AS first, "change_id" AS last FROM \(schema.changeTable)
            WHERE "change_id" BETWEEN ?1 AND ?2 AND ("type" <> 'update' OR \(relevantUpdate))
            """ : """
            SELECT "record_id", min("change_id") AS first, max("change_id") AS last FROM \(schema.changeTable)
            WHERE "change_id" BETWEEN ?1 AND ?2 AND ("type" <> 'update' OR \(relevantUpdate))
            GROUP BY "record_id"
            """
        let images = """
            SELECT -1 AS importer_sign\(before.isEmpty ? "" : ", " + before.joined(separator: ", "))
              FROM ends JOIN \(schema.changeTable) AS c ON c."change_id" = ends.first WHERE c."type" <> 'insert'
            UNION ALL
            SELECT 1 AS importer_sign\(after.isEmpty ? "" : ", " + after.joined(separator: ", "))
              FROM ends JOIN \(schema.changeTable) AS c ON c."change_id" = ends.last WHERE c."type" <> 'delete'
            """
        let groups = view.groupBy.compactMap { entity.expression(for: $0)?.sql() }
        var selections = zip(view.groupBy, groups).map { "\($1) AS \(Self.q($0))" }
        selections.append("sum(importer_sign)")
        for aggregate in view.aggregates {
            let value = aggregate.attribute.flatMap { entity.expression(for: $0)?.sql() } ?? "NULL"
            switch aggregate.function {
            case .count:
                selections.append(aggregate.attribute == nil ? "sum(importer_sign)" : "sum(CASE WHEN \(value) IS NOT NULL THEN importer_sign ELSE 0 END)")
            case .sum:
                selections.append("total(importer_sign * \(value))")
            case .avg:
                selections.append("total(importer_sign * \(value))")
                selections.append("sum(CASE WHEN \(value) IS NOT NULL THEN importer_sign ELSE 0 END)")
            case .min:
                selections.append("min(CASE WHEN importer_sign > 0 THEN \(value) END)")
                selections.append("min(CASE WHEN importer_sign < 0 THEN \(value) END)")
            case .max:
                selections.append("max(CASE WHEN importer_sign > 0 THEN \(value) END)")
                selections.append("max(CASE WHEN importer_sign < 0 THEN \(value) END)")
            }
        }
        return "WITH ends AS (\(ends)), images AS (\(images)) SELECT \(selections.joined(separator: ", ")) FROM images GROUP BY \(groups.joined(separator: ", "))"
    }

    /// The view row of the bound group (parameters 1...n), all storage columns.
    var selectGroup: String {
        "SELECT rowid, \(allColumns.dropFirst(view.groupBy.count).map(Self.q).joined(separator: ", ")) FROM \(table) WHERE \(groupMatch)"
    }

    var groupMatch: String {
        view.groupBy.enumerated().map { "\(Self.q($0.element)) IS ?\($0.offset + 1)" }.joined(separator: " AND ")
    }

    var insertGroup: String {
        "INSERT INTO \(table) (\(allColumns.map(Self.q).joined(separator: ", "))) VALUES (\(allColumns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
    }

    /// Updates the aggregate columns and row count of the row `?1` (rowid), from parameter 2 on.
    var updateGroup: String {
        let columns = allColumns.dropFirst(view.groupBy.count)
        return "UPDATE \(table) SET \(columns.enumerated().map { "\(Self.q($0.element)) = ?\($0.offset + 2)" }.joined(separator: ", ")) WHERE rowid = ?1"
    }

    var deleteGroup: String { "DELETE FROM \(table) WHERE rowid = ?1" }
}
