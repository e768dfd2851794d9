import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Derived views in SQLite: one table per view (see `ViewSQL`), registered in `importer_view`;
/// deltas applied per group from the change tables (`ViewDeltaApplier`), rebuilds by one in-memory
/// scan per entity (`ViewAggregator`) or SQL `GROUP BY` when there are too many groups.
extension SQLiteStore {
    func viewSchema(_ view: ViewDefinition) throws -> ViewSQL {
        try ViewSQL(view: view, entities: entities, dialect: SQLiteDialect())
    }

    public func registeredViews() throws(StoreError) -> [ViewDefinition] {
        try mapErrors {
            try connection.rows("SELECT definition FROM importer_view ORDER BY name").compactMap { row in
                try row[0].stringValue.map(ViewRegistration.view(fromDefinition:))
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
        let definition = try ViewRegistration.definition(view)
        try connection.execute("""
            INSERT INTO importer_view (name, entity, definition, registered_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET entity = excluded.entity, definition = excluded.definition, registered_at = excluded.registered_at
            """, [.text(view.name), .text(view.entity), .text(definition), .text(Timestamp.now())])
    }

    public func viewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        let schema = try viewSchema(view)
        return ViewRegistration.keyed(try connection.rows(schema.allRows), groups: view.groupBy.count)
    }

    public func recomputedViewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        ViewRegistration.keyed(try connection.rows(try viewSchema(view).recomputation), groups: view.groupBy.count)
    }

    public func orderedViewRows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) {
        let (columns, sql) = try viewSchema(view).orderedRows
        return (columns, try connection.rows(sql))
    }

    public func applyViewChanges(_ view: ViewDefinition, changes range: ClosedRange<Int64>, into effect: inout ViewEffect) throws {
        try ViewDeltaApplier(sql: try viewSchema(view), executor: SQLiteExecutor(connection)).apply(range, effect: &effect)
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
}
