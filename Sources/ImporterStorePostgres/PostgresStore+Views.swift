import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Derived views in PostgreSQL: the same tables, registration, deltas and rebuilds as SQLite's
/// (`ViewSQL`, `ViewDeltaApplier` in PostgreSQL's dialect), in the store's schema. A rebuild is one
/// `INSERT … SELECT … GROUP BY` per view: the server aggregates, spilling to disk when it must.
extension PostgresStore {
    func viewSQL(_ view: ViewDefinition) throws -> ViewSQL {
        try ViewSQL(view: view, entities: entities, dialect: PostgresDialect())
    }

    public func registeredViews() throws(StoreError) -> [ViewDefinition] {
        try mapErrors {
            try connection.rows(#"SELECT "definition" FROM importer_view ORDER BY "name" COLLATE "C""#).compactMap { row in
                try row[0].stringValue.map(ViewRegistration.view(fromDefinition:))
            }
        }
    }

    public func installView(_ view: ViewDefinition, replacing: Bool) throws {
        let sql = try viewSQL(view)
        let taken = try connection.integer(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND lower(tablename) = lower($1)", [.text(view.name)])
        if taken > 0, !replacing {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name): a table of that name already exists")
        }
        try connection.execute(sql.dropStatement)
        for statement in sql.createStatements { try connection.execute(statement) }
        let definition = try ViewRegistration.definition(view)
        try connection.affected("""
            INSERT INTO importer_view ("name", "entity", "definition", "registered_at") VALUES ($1, $2, $3, $4)
            ON CONFLICT ("name") DO UPDATE SET "entity" = excluded."entity", "definition" = excluded."definition",
              "registered_at" = excluded."registered_at"
            """, [.text(view.name), .text(view.entity), .text(definition), .text(Timestamp.now())])
    }

    public func viewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        ViewRegistration.keyed(try connection.rows(try viewSQL(view).allRows), groups: view.groupBy.count)
    }

    public func recomputedViewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] {
        ViewRegistration.keyed(try connection.rows(try viewSQL(view).recomputation), groups: view.groupBy.count)
    }

    public func orderedViewRows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) {
        let (columns, sql) = try viewSQL(view).orderedRows
        return (columns, try connection.rows(sql))
    }

    public func applyViewChanges(_ view: ViewDefinition, changes range: ClosedRange<Int64>, into effect: inout ViewEffect) throws {
        try ViewDeltaApplier(sql: try viewSQL(view), executor: PostgresExecutor(connection: connection)).apply(range, effect: &effect)
    }

    public func rebuildViews(_ views: [ViewDefinition]) throws {
        for view in views {
            for statement in try viewSQL(view).rebuild { try connection.execute(statement) }
        }
    }
}
