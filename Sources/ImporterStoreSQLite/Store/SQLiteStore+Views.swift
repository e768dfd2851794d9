import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Rebuilding and replaying derived views in SQLite: one in-memory scan per entity of its table
/// (`ViewAggregator`) or of its change rows (`ViewDeltaScan`), or SQL `GROUP BY` when there are too
/// many groups to hold (registration is `SQLBackend`'s).
extension SQLiteStore {
    package func rebuildViews(_ views: [ViewDefinition]) throws(StoreError) {
        var schemas: [ViewSQL] = []
        for view in views { schemas.append(try viewSQL(view)) }
        try mapErrors { try rebuild(schemas) }
    }

    private func rebuild(_ schemas: [ViewSQL]) throws {
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

    /// Applies the changes to all the views of an entity from one scan of its change rows, or, when
    /// they touch too many groups to hold, view by view in SQL.
    package func applyViewChanges(_ views: [ViewDefinition], changes range: ClosedRange<Int64>, into effects: inout [ViewEffect]) throws(StoreError) {
        var schemas: [ViewSQL] = []
        for view in views { schemas.append(try viewSQL(view)) }
        var applied = effects
        try mapErrors {
            for indices in Dictionary(grouping: schemas.indices, by: { schemas[$0].entity.name }).values {
                let group = indices.map { schemas[$0] }
                let scan = try scanChanges(range, of: group)
                for (position, index) in indices.enumerated() {
                    let applier = ViewDeltaApplier(sql: schemas[index], executor: executor)
                    if let scan {
                        try applier.apply(deltas: scan.deltaRows(position), effect: &applied[index])
                    } else {
                        try applier.apply(range, effect: &applied[index])
                    }
                }
            }
        }
        effects = applied
    }

    /// The deltas of `schemas` (views of one entity) over the change rows in `range`, or nil when
    /// they touch too many groups to hold.
    private func scanChanges(_ range: ClosedRange<Int64>, of schemas: [ViewSQL]) throws -> ViewDeltaScan? {
        guard let first = schemas.first else { return nil }
        var scan = ViewDeltaScan(entity: first.entity, schemas: schemas)
        let oneTransaction = try ViewDeltaApplier.isOneTransaction(range, sql: first, executor: executor)
        let statement = try connection.prepare(scan.query(oneTransaction: oneTransaction, dialect: dialect))
        defer { statement.reset() }
        statement.bind([.integer(range.lowerBound), .integer(range.upperBound)])
        var row = [Value](repeating: .null, count: scan.width)
        while try statement.step() {
            for index in row.indices { row[index] = statement.value(at: Int32(index)) }
            guard scan.add(row) else { return nil }
        }
        return scan
    }

    package func recordCountUpperBound(of entity: EntityDescription) throws(StoreError) -> Int64 {
        try mapErrors { try SQLiteEntitySchema.lastAssignedID(entity.tableName, in: connection) }
    }
}
