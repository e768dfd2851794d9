import ImporterModel
import ImporterStore

/// The SQL of one derived view in a backend's dialect: its table, the full recomputation, and the
/// delta of a range of history changes per group. Both backends store history alike (one change
/// table per entity: `importer_change_<table>`, after-images in the attributes' columns, an
/// update's old values in `importer_old.<attribute>`, importer's own columns named by
/// `ChangeColumns`), so one generator serves both.
///
/// The view table holds one row per group: the group columns, one column per aggregate, and
/// `importer_rows` (records in the group; the group row is deleted when it reaches 0). Averages
/// keep their running sum and count in `importer_sum_<name>` and `importer_count_<name>`.
/// Expressions (derived attributes) are rendered both over the entity table (rebuild) and over
/// history images (replay), so both paths compute groups identically.
package struct ViewSQL {
    package let view: ViewDefinition
    package let entity: EntityDescription
    package let dialect: any SQLDialect

    package init(view: ViewDefinition, entity: EntityDescription, dialect: any SQLDialect) {
        self.view = view
        self.entity = entity
        self.dialect = dialect
    }

    package var table: String { q(view.name) }
    static let rows = "importer_rows"

    func q(_ name: String) -> String { dialect.quoted(name) }
    func p(_ n: Int) -> String { dialect.parameter(n) }
    private var entityTable: String { q(entity.tableName) }
    /// The entity's change table (the same name in both backends).
    package var changeTable: String { q("importer_change_" + entity.tableName) }
    /// Views are replayed in write transactions, on stores brought to the current layout.
    private var columns: ChangeColumns { .current }
    private var changeID: String { q(columns.changeID) }
    private var changeType: String { q(columns.type) }
    private var changeColumn: String { q(columns.changed) }
    /// An attribute's (stored or derived) expression over the entity's columns.
    private func expression(_ name: String) -> String? { entity.expression(for: name)?.sql(dialect) }

    func type(of name: String) -> AttributeType {
        entity.attribute(named: name)?.type ?? entity.derivedAttribute(named: name)?.type ?? .text
    }

    /// The column types of the view table, in `allColumns` order, and whether each is NOT NULL.
    private var columnTypes: [(type: String, notNull: Bool)] {
        let integer = dialect.columnType(.integer), real = dialect.columnType(.real)
        var types = view.groupBy.map { (dialect.columnType(type(of: $0)), false) }
        for aggregate in view.aggregates {
            switch aggregate.function {
            case .count: types.append((integer, true))
            case .sum: types.append((real, true))
            case .min, .max: types.append((aggregate.attribute.map { dialect.columnType(type(of: $0)) } ?? real, false))
            case .avg: types += [(real, false), (real, true), (integer, true)]
            }
        }
        return types + [(integer, true)]
    }

    package var createStatements: [String] {
        let columns = zip(allColumns, columnTypes).map { "\(q($0)) \($1.type)\($1.notNull ? " NOT NULL" : "")" }
        return [
            "CREATE TABLE \(table) (\n  \(columns.joined(separator: ",\n  "))\n)",
            "CREATE UNIQUE INDEX \(q("importer_group_\(view.name)")) ON \(table) (\(view.groupBy.map(q).joined(separator: ", ")))",
        ]
    }

    package var dropStatement: String { "DROP TABLE IF EXISTS \(table)" }

    /// An aggregate's argument ordered for `min`/`max` (see `SQLDialect.ordered`).
    private func extreme(_ aggregate: Aggregate, _ value: String) -> String {
        dialect.ordered(value, type: aggregate.attribute.map(type(of:)) ?? .real)
    }

    /// `SELECT <groups>, <aggregate columns...>, importer_rows` over the entity table, grouped.
    private func aggregateQuery(where condition: String?) -> String {
        let groups = view.groupBy.compactMap(expression)
        var selections = zip(view.groupBy, groups).map { "\($1) AS \(q($0))" }
        for aggregate in view.aggregates {
            let argument = aggregate.attribute.flatMap(expression)
            switch aggregate.function {
            case .count: selections.append(argument.map { "count(\($0))" } ?? "count(*)")
            case .sum: selections.append(dialect.total(argument ?? "NULL"))
            case .min: selections.append("min(\(extreme(aggregate, argument ?? "NULL")))")
            case .max: selections.append("max(\(extreme(aggregate, argument ?? "NULL")))")
            case .avg:
                let value = argument ?? "NULL"
                selections += [dialect.average(value), dialect.total(value), "count(\(value))"]
            }
        }
        selections.append("count(*)")
        var sql = "SELECT \(selections.joined(separator: ", ")) FROM \(entityTable)"
        if let condition { sql += " WHERE \(condition)" }
        return sql + " GROUP BY \(groups.joined(separator: ", "))"
    }

    package var allColumns: [String] { view.storageColumns }

    /// Recomputes every group from the entity table into the view table (emptied first).
    package var rebuild: [String] {
        [
            "DELETE FROM \(table)",
            "INSERT INTO \(table) (\(allColumns.map(q).joined(separator: ", "))) \(aggregateQuery(where: nil))",
        ]
    }

    /// The full recomputation as a query (for `verify`).
    package var recomputation: String { aggregateQuery(where: nil) }

    /// The full recomputation of the groups equal to the bound group values (parameters 1...n),
    /// for min/max groups that lost their extreme.
    var recomputeGroup: String {
        let match = view.groupBy.enumerated().compactMap { index, name in
            expression(name).map { dialect.nullSafeEqual($0, p(index + 1)) }
        }.joined(separator: " AND ")
        return aggregateQuery(where: match)
    }

    /// The full recomputation of `count` bound groups (parameters: the values of each group in
    /// turn, none NULL) in one scan of the entity table: each record's group is computed once and
    /// looked up among them (`IN (VALUES …)`), where `recomputeGroup` scans the table per group.
    /// Rows: the groups found, laid out as `recomputeGroup`'s.
    func recomputeGroups(_ count: Int) -> String {
        let groups = view.groupBy.compactMap(expression)
        let rows = boundRows(count, types: columnTypes.prefix(view.groupBy.count).map(\.type))
        return aggregateQuery(where: "(\(groups.joined(separator: ", "))) IN (VALUES \(rows))")
    }

    /// Per group touched by the change rows with ids in parameters 1...2: the change in record
    /// count and in each aggregate. Columns: groups, `d_rows`, then per aggregate: count → `d`;
    /// sum → `d`; avg → `d_sum`, `d_count`; min/max → `added`, `removed` (the extreme among values
    /// entering and among values leaving the group).
    ///
    /// Each record contributes its net change over the range: the before-image of its first
    /// relevant change leaves its group, the after-image of its last one enters a group. A record
    /// inserted and deleted inside the range contributes nothing, so every value that enters is
    /// present at the end of the range (which makes the min/max rule in `ViewDeltaApplier` exact).
    /// `oneTransaction`: the range lies in one transaction, which holds at most one change row per
    /// record, so each row is both the first and the last change of its record: no grouping by
    /// record and no join back by id, most of the query otherwise (figures: Docs/PERFORMANCE.md,
    /// "Measurements behind the code").
    func delta(oneTransaction: Bool) -> String {
        let images = imagesQuery(oneTransaction: oneTransaction, attributes: view.storedAttributes(of: entity), grouped: view.groupedAttributes(of: entity))
        let groups = view.groupBy.compactMap(expression)
        let selections = zip(view.groupBy, groups).map { "\($1) AS \(q($0))" } + deltaAggregates
        return "WITH \(images) SELECT \(selections.joined(separator: ", ")) FROM importer_images WHERE \(Self.hasImage) GROUP BY \(groups.joined(separator: ", "))"
    }

    /// The view's group expressions over the images of `delta` (and of `ViewDeltaSets`).
    var groupExpressions: [String] { view.groupBy.compactMap(expression) }

    /// The columns of a `delta` row after the groups, aggregated over `importer_images`: the
    /// change in records, then each aggregate's delta columns. A value entering a group is the
    /// aggregate's argument over the after-image (`importer_new.` columns), one leaving it over the
    /// group image; a record that stays in its group adds `new - old` in one row, which is exactly
    /// 0 when the value did not change (so the other views of a `ViewDeltaSets` get no noise).
    var deltaAggregates: [String] {
        let rows = "sum(importer_enter - importer_leave)"
        var selections = [rows]
        for aggregate in view.aggregates {
            let old = aggregate.attribute.flatMap(expression) ?? "NULL"
            let new = aggregate.attribute.flatMap(newExpression) ?? "NULL"
            let counted = "sum(CASE WHEN \(new) IS NOT NULL THEN importer_enter ELSE 0 END - CASE WHEN \(old) IS NOT NULL THEN importer_leave ELSE 0 END)"
            let summed = dialect.deltaTotal("coalesce(importer_enter * \(new), 0) - coalesce(importer_leave * \(old), 0)")
            switch aggregate.function {
            case .count: selections.append(aggregate.attribute == nil ? rows : counted)
            case .sum: selections.append(summed)
            case .avg: selections += [summed, counted]
            case .min, .max:
                let function = aggregate.function.rawValue
                selections.append("\(function)(CASE WHEN importer_enter = 1 THEN \(extreme(aggregate, new)) END)")
                selections.append("\(function)(CASE WHEN importer_leave = 1 THEN \(extreme(aggregate, old)) END)")
            }
        }
        return selections
    }

    /// An attribute's expression over the after-image columns of `importer_images`.
    private func newExpression(_ name: String) -> String? {
        entity.expression(for: name)?.sql(dialect) { dialect.quoted(Self.newPrefix + $0) }
    }

    private static let newPrefix = "importer_new."

    /// The `importer_images` common table expression of `delta` (with the CTEs it reads): per
    /// record with a change row in the range that touches one of the stored `attributes`, rows of
    /// `importer_leave` (1: the group image leaves its group), `importer_enter` (1: the after-image
    /// enters the group of the group image), the group image (each attribute under its name) and
    /// the after-image (`importer_new.<attribute>`):
    /// - a record that has both images and whose `grouped` attributes (the ones group expressions
    ///   read) may have changed: its before-image leaving (1, 0), its after-image entering (0, 1);
    /// - one that has both and keeps those: one row (1, 1), the before-image as group image;
    /// - an insert: its after-image (0, 1); a delete: its before-image (1, 0).
    /// Rows (0, 0) are the second half of the rows that need one; the queries over the images keep
    /// `hasImage` rows only.
    ///
    /// Each record contributes its net change over the range: the before-image of its first
    /// relevant change, the after-image of its last. Within one transaction each image comes
    /// straight from a scan of the range, and whether the groups may move is read from the
    /// change's list of changed attributes; else from the record's first and last change, joined
    /// back by id once (`importer_records`), and the groups may move when a grouped attribute's
    /// images differ. The change type is tested in the flags, not in a `WHERE` of the scan:
    /// `c.importer_type <> 'insert'` there matches the change table's partial index on non-insert
    /// rows, which PostgreSQL's planner, its statistics older than the rows being replayed, read
    /// whole (every update and delete in history) instead of the range (figures:
    /// Docs/PERFORMANCE.md, "Measurements behind the code").
    func imagesQuery(oneTransaction: Bool, attributes: Set<String>, grouped: Set<String>) -> String {
        let stored = attributes.sorted()
        let scan = ChangeScanSQL(entity: entity, dialect: dialect, oneTransaction: oneTransaction, attributes: Set(stored))
        let groupedStored = stored.filter(grouped.contains)
        let leaves: String, enters: String, moves: String, source: String
        var before: (String) -> String = scan.beforeImage, after: (String) -> String = scan.afterImage
        var prefix = ""
        if oneTransaction {
            let changed = "c.\(changeColumn)"
            leaves = "c.\(changeType) <> 'insert'"
            enters = "c.\(changeType) <> 'delete'"
            moves = groupedStored.isEmpty ? "FALSE" : "(\(groupedStored.map { dialect.list(changed, contains: $0) }.joined(separator: " OR ")))"
            source = "\(changeTable) AS c WHERE \(scan.range(in: ""))"
        } else {
            let same = groupedStored.map { dialect.nullSafeEqual(scan.beforeImage($0), scan.afterImage($0)) }
            let moved = same.isEmpty ? "0" : "CASE WHEN \(same.joined(separator: " AND ")) THEN 0 ELSE 1 END"
            let columns = ["f.\(changeType) AS importer_first_type", "l.\(changeType) AS importer_last_type", "\(moved) AS importer_moved"]
                + stored.map { "\(scan.beforeImage($0)) AS \(q("importer_was." + $0))" } + stored.map { "\(scan.afterImage($0)) AS \(q(Self.newPrefix + $0))" }
            prefix = "importer_records AS (\(scan.select(columns))), "
            leaves = "importer_first_type <> 'insert'"
            enters = "importer_last_type <> 'delete'"
            moves = "importer_moved = 1"
            source = "importer_records"
            before = { q("importer_was." + $0) }
            after = { q(Self.newPrefix + $0) }
        }
        let newImage = stored.map { "\(after($0)) AS \(q(Self.newPrefix + $0))" }
        let stays = "CASE WHEN \(leaves) AND \(enters) AND NOT \(moves) THEN 1 ELSE 0 END"
        let arrives = "CASE WHEN \(enters) AND (NOT \(leaves) OR \(moves)) THEN 1 ELSE 0 END"
        let images = """
            SELECT CASE WHEN \(leaves) THEN 1 ELSE 0 END AS importer_leave, \(stays) AS importer_enter\((stored.map { "\(before($0)) AS \(q($0))" } + newImage).map { ", " + $0 }.joined())
              FROM \(source)
            UNION ALL
            SELECT 0 AS importer_leave, \(arrives) AS importer_enter\((stored.map { "\(after($0)) AS \(q($0))" } + newImage).map { ", " + $0 }.joined())
              FROM \(source)
            """
        return "\(prefix)importer_images AS (\(images))"
    }

    /// The condition keeping the rows of `imagesQuery` that carry an image.
    static let hasImage = "(importer_leave <> 0 OR importer_enter <> 0)"

    /// The transaction numbers of the change rows with ids parameters 1 and 2.
    var rangeTransactions: String {
        let number = q(columns.transactionNumber)
        return "SELECT (SELECT \(number) FROM \(changeTable) WHERE \(changeID) = \(p(1))), (SELECT \(number) FROM \(changeTable) WHERE \(changeID) = \(p(2)))"
    }

    /// The view's groups equal to parameters `first`, `first + 1`, ….
    private func groupMatch(from first: Int) -> String {
        view.groupBy.enumerated().map { dialect.nullSafeEqual(q($0.element), p(first + $0.offset)) }.joined(separator: " AND ")
    }

    /// The storage columns after the groups: aggregates (with averages' sums and counts), then
    /// `importer_rows`.
    private var storedAfterGroups: [String] { Array(allColumns.dropFirst(view.groupBy.count)) }

    /// `count` rows of a `VALUES` list bound one after another from parameter 1, each column cast
    /// to its type (nil: as bound).
    private func boundRows(_ count: Int, types: [String?]) -> String {
        (0..<count).map { row in
            "(" + types.enumerated().map { column, type in
                let parameter = p(row * types.count + 1 + column)
                return type.map { "CAST(\(parameter) AS \($0))" } ?? parameter
            }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// The view rows of `count` bound groups (parameters: the values of each group in turn): the
    /// group's position among them (from 0), its handle, then its storage columns after the groups.
    /// One statement, not a round trip per group.
    func selectGroups(_ count: Int) -> String {
        let matches = (0..<count).map { groupMatch(from: 1 + $0 * view.groupBy.count) }
        let position = "CASE \(matches.enumerated().map { "WHEN \($1) THEN \($0)" }.joined(separator: " ")) END"
        return "SELECT \(position), \(dialect.rowHandle), \(storedAfterGroups.map(q).joined(separator: ", ")) FROM \(table) WHERE \(matches.map { "(\($0))" }.joined(separator: " OR "))"
    }

    /// Updates `count` rows of the view, bound one row after another: the row's handle, then its
    /// storage columns after the groups.
    func updateGroups(_ count: Int) -> String {
        let columns = storedAfterGroups
        let rows = boundRows(count, types: [nil] + columnTypes.dropFirst(view.groupBy.count).map(\.type))
        let names = ["importer_handle"] + columns.indices.map { "importer_value\($0)" }
        let assignments = columns.indices.map { "\(q(columns[$0])) = importer_updates.importer_value\($0)" }
        return "WITH importer_updates (\(names.joined(separator: ", "))) AS (VALUES \(rows)) "
            + "UPDATE \(table) SET \(assignments.joined(separator: ", ")) FROM importer_updates WHERE \(dialect.matchRowHandle("importer_updates.importer_handle"))"
    }

    package var insertGroup: String {
        "INSERT INTO \(table) (\(allColumns.map(q).joined(separator: ", "))) VALUES (\(allColumns.indices.map { p($0 + 1) }.joined(separator: ", ")))"
    }

    var deleteGroup: String { "DELETE FROM \(table) WHERE \(dialect.matchRowHandle(p(1)))" }

    /// The view's group and aggregate columns, rows ordered by group (text by bytes).
    package var orderedRows: (columns: [String], sql: String) {
        let columns = view.groupBy + view.aggregates.map(\.name)
        let order = view.groupBy.map { dialect.ordered(q($0), type: type(of: $0)) }
        return (columns, "SELECT \(columns.map(q).joined(separator: ", ")) FROM \(table) ORDER BY \(order.joined(separator: ", "))")
    }

    /// Every storage column of every row.
    package var allRows: String { "SELECT \(allColumns.map(q).joined(separator: ", ")) FROM \(table)" }
}

extension ViewSQL {
    /// The view's SQL over the entity it reads among the store's `entities`.
    package init(view: ViewDefinition, entities: [EntityDescription], dialect: any SQLDialect) throws(StoreError) {
        guard let entity = entities.first(where: { $0.name == view.entity }) else {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name) reads an entity the store does not hold")
        }
        self.init(view: view, entity: entity, dialect: dialect)
    }
}
