import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// Derived views in SQLite: one table per view (see `ViewSchema`), registered in `importer_view`;
/// deltas applied per group from the change tables, rebuilds by one in-memory scan per entity
/// (`ViewAggregator`) or SQL `GROUP BY` when there are too many groups.
extension SQLiteStore {
    func viewSchema(_ view: ViewDefinition) throws -> ViewSchema {
        guard let entity = entity(named: view.entity) else {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name) reads an entity the store does not hold")
        }
        return ViewSchema(view: view, entity: entity)
    }

    public func registeredViews() throws(StoreError) -> [ViewDefinition] {
        try mapErrors {
            try connection.rows("SELECT definition FROM importer_view ORDER BY name").compactMap { row in
                try row[0].stringValue.map { try JSONDecoder().decode(ViewDefinition.self, from: Data($0.utf8)) }
            }
        }
    }

    public func installView(_ view: ViewDefinition, replacing: Bool) throws {
        let schema = try viewSchema(view)
        if try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type = 'table'", [.text(view.name)]) != .integer(0),
           !replacing {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name): a table of that name already exists")
        }
        try connection.execute(schema.dropStatement)
        for statement in schema.createStatements { try connection.execute(statement) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let definition = String(decoding: try encoder.encode(view), as: UTF8.self)
        try connection.execute("""
            INSERT INTO importer_view (name, entity, definition, registered_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET entity = excluded.entity, definition = excluded.definition, registered_at = excluded.registered_at
            """, [.text(view.name), .text(view.entity), .text(definition), .text(Timestamp.now())])
    }

    public func viewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        let schema = try viewSchema(view)
        return try Self.keyed(try connection.rows("SELECT \(schema.allColumns.map(ViewSchema.q).joined(separator: ", ")) FROM \(schema.table)"), groups: view.groupBy.count)
    }

    public func recomputedViewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        try Self.keyed(try connection.rows(try viewSchema(view).recomputation), groups: view.groupBy.count)
    }

    private static func keyed(_ rows: [[Value]], groups count: Int) -> [[Value]: [Value]] {
        var result: [[Value]: [Value]] = [:]
        for row in rows { result[Array(row.prefix(count))] = Array(row.dropFirst(count)) }
        return result
    }

    public func orderedViewRows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) {
        let schema = try viewSchema(view)
        let columns = view.groupBy + view.aggregates.map(\.name)
        let rows = try connection.rows("SELECT \(columns.map(ViewSchema.q).joined(separator: ", ")) FROM \(schema.table) ORDER BY \(view.groupBy.map(ViewSchema.q).joined(separator: ", "))")
        return (columns, rows)
    }

    public func applyViewChanges(_ view: ViewDefinition, changes range: ClosedRange<Int64>, into effect: inout ViewEffect) throws {
        try apply(try viewSchema(view), range: range, effect: &effect)
    }

    public func rebuildViews(_ views: [ViewDefinition]) throws {
        let schemas = try views.map(viewSchema)
        for group in Dictionary(grouping: schemas, by: { $0.entity.name }).values {
            guard let entity = group.first?.entity else { continue }
            let computed = try ViewAggregator(entity: entity, schemas: group).compute(connection)
            for (index, schema) in group.enumerated() {
                if let rows = computed?[index] {
                    try connection.execute("DELETE FROM \(schema.table)")
                    let insert = try connection.prepare(schema.insertGroup)
                    for (key, values) in rows { try insert.execute(key + values) }
                } else {
                    // Too many groups to hold: SQL groups them, spilling to disk.
                    for statement in schema.rebuild { try connection.execute(statement) }
                }
            }
        }
    }

    public func changeRange(of entity: String, after: Int64, through: Int64) throws -> ClosedRange<Int64>? {
        try changeIDs(of: entity, after: after, through: through)
    }

    public func recordCountUpperBound(of entity: EntityDescription) throws -> Int64 {
        try EntitySchema.lastAssignedID(entity.tableName, in: connection)
    }

    /// Applies the per-group deltas of the change rows in `range` to the view table.
    func apply(_ schema: ViewSchema, range: ClosedRange<Int64>, effect: inout ViewEffect) throws {
        let view = schema.view
        let groupCount = view.groupBy.count
        let select = try connection.prepare(schema.selectGroup)
        let insert = try connection.prepare(schema.insertGroup)
        let update = try connection.prepare(schema.updateGroup)
        let delete = try connection.prepare(schema.deleteGroup)
        var recompute: [[Value]] = []
        let changes = EntitySchema(entity: schema.entity).changeTable
        let transactions = try connection.rows(
            "SELECT (SELECT \"transaction_number\" FROM \(changes) WHERE \"change_id\" = ?1), (SELECT \"transaction_number\" FROM \(changes) WHERE \"change_id\" = ?2)",
            [.integer(range.lowerBound), .integer(range.upperBound)]).first
        let oneTransaction = transactions.map { !$0[0].isNull && $0[0].isSame(as: $0[1]) } ?? false
        let deltas = try connection.rows(schema.delta(oneTransaction: oneTransaction), [.integer(range.lowerBound), .integer(range.upperBound)])
        for delta in deltas {
            let group = Array(delta.prefix(groupCount))
            let rowDelta = delta[groupCount].doubleValue.map { Int64($0) } ?? 0
            let current = try select.rows(group).first
            // Storage values after the group's own columns: aggregates..., importer_rows.
            guard let current, case .integer(let rowid) = current[0] else {
                guard rowDelta > 0 else {
                    if rowDelta == 0 { continue }
                    throw ViewError.outOfSync(view: view.name, reason: "records leave group (\(group.map(\.description).joined(separator: ", "))) which the view does not have")
                }
                let (values, needsRecompute) = groupValues(schema, stored: nil, delta: delta, rows: rowDelta)
                try insert.execute(group + values)
                if needsRecompute { recompute.append(group) }
                effect.insertedGroups += 1
                continue
            }
            let stored = Array(current.dropFirst())
            guard case .integer(let rows) = stored.last ?? .null else { continue }
            let newRows = rows + rowDelta
            if newRows == 0 {
                try delete.execute([.integer(rowid)])
                effect.deletedGroups += 1
                continue
            }
            guard newRows > 0 else {
                throw ViewError.outOfSync(view: view.name, reason: "group (\(group.map(\.description).joined(separator: ", "))) would have \(newRows) records")
            }
            let (values, needsRecompute) = groupValues(schema, stored: stored, delta: delta, rows: newRows)
            if needsRecompute { recompute.append(group) }
            if !zip(values, stored).allSatisfy({ $0.isSame(as: $1) }) || needsRecompute {
                try update.execute([.integer(rowid)] + values)
                effect.updatedGroups += 1
            }
        }
        if !recompute.isEmpty {
            let full = try connection.prepare(schema.recomputeGroup)
            for group in recompute {
                guard let row = try full.rows(group).first else { continue }
                try update.execute([try select.rows(group).first?[0] ?? .null] + Array(row.dropFirst(groupCount)))
                effect.recomputedGroups += 1
            }
        }
    }

    /// Storage values (aggregates..., rows) of a group after its delta (`stored` is nil for a group
    /// entering the view), and whether a minimum or maximum must be recomputed: when a value that
    /// left the group was at least as extreme as the group's extreme and no value entering the group
    /// (all of which are present at the end of the range) is at least as extreme as it.
    private func groupValues(_ schema: ViewSchema, stored: [Value]?, delta: [Value], rows: Int64) -> ([Value], Bool) {
        var values: [Value] = []
        var needsRecompute = false
        var column = schema.view.groupBy.count + 1
        var index = 0
        func storedNumber(_ offset: Int) -> Double { stored?[index + offset].doubleValue ?? 0 }
        for aggregate in schema.view.aggregates {
            switch aggregate.function {
            case .count:
                values.append(.integer(Int64(storedNumber(0)) + Int64(delta[column].doubleValue ?? 0)))
                column += 1
                index += 1
            case .sum:
                values.append(.real(storedNumber(0) + (delta[column].doubleValue ?? 0)))
                column += 1
                index += 1
            case .avg:
                let sum = storedNumber(1) + (delta[column].doubleValue ?? 0)
                let count = Int64(storedNumber(2)) + Int64(delta[column + 1].doubleValue ?? 0)
                values += [count > 0 ? .real(sum / Double(count)) : .null, .real(sum), .integer(count)]
                column += 2
                index += 3
            case .min, .max:
                let sign = aggregate.function == .max ? 1 : -1
                // `better`: more extreme in the aggregate's order (max: larger; min: smaller).
                func better(_ a: Value, _ b: Value) -> Bool { Value.compare(a, b) * sign > 0 }
                let added = delta[column], removed = delta[column + 1]
                var result = stored?[index] ?? .null
                if !added.isNull && (result.isNull || better(added, result)) { result = added }
                if !removed.isNull && (result.isNull || !better(result, removed)) && (added.isNull || better(removed, added)) {
                    needsRecompute = true
                }
                values.append(result)
                column += 2
                index += 1
            }
        }
        return (values + [.integer(rows)], needsRecompute)
    }
}
