import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Rebuilding derived views in SQLite: one in-memory scan per entity (`ViewAggregator`), or SQL
/// `GROUP BY` when there are too many groups (registration and deltas are `SQLBackend`'s).
extension SQLiteStore {
    public func rebuildViews(_ views: [ViewDefinition]) throws(StoreError) {
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

    public func recordCountUpperBound(of entity: EntityDescription) throws(StoreError) -> Int64 {
        try mapErrors { try EntitySchema.lastAssignedID(entity.tableName, in: connection) }
    }
}
