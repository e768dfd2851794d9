import Foundation
import ImporterModel
import ImporterStore

/// The entities and views a store holds, registered in `importer_entity` and `importer_view`
/// (definitions as JSON with sorted keys).
///
/// The only change applied to an existing entity is adding an optional attribute (a new nullable
/// column, `EntityMigration`): anything that could lose data is refused with the reason.
extension SQLBackend {
    /// The registered entities, in the order they were registered.
    package func registeredEntities() throws -> [EntityDescription] {
        let decoder = JSONDecoder()
        return try executor.rows(#"SELECT "definition" FROM importer_entity ORDER BY \#(registrationOrder)"#, []).compactMap { row in
            guard case .text(let json) = row[0] else { return nil }
            return try decoder.decode(EntityDescription.self, from: Data(json.utf8))
        }
    }

    /// Creates or migrates the tables of `wanted` so the store matches them, and registers them;
    /// returns the store's entities afterwards. Inside a write transaction, so that a failed import
    /// also undoes it.
    package func registerEntities(_ wanted: [EntityDescription]) throws -> [EntityDescription] {
        let registered = try registeredEntities()
        var changed = false
        for entity in wanted {
            let problems = entity.validate()
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            switch try EntityMigration.plan(for: entity, registered: registered) {
            case .upToDate:
                continue
            case .create:
                try checkNotRetired(entity)
                for statement in createStatements(for: entity) { try executor.execute(statement, []) }
                for index in entity.indexes { try executor.execute(tables(of: entity).createIndex(index), []) }
            case .update(let added):
                for attribute in added {
                    for statement in addColumnStatements(for: attribute, of: entity) { try executor.execute(statement, []) }
                }
                let before = registered.first { $0.name == entity.name }?.indexes ?? []
                for index in before where !entity.indexes.contains(index) { try executor.execute(tables(of: entity).dropIndex(index), []) }
                for index in entity.indexes where !before.contains(index) { try executor.execute(tables(of: entity).createIndex(index), []) }
            }
            try executor.execute("""
                INSERT INTO importer_entity ("name", "table_name", "definition", "registered_at") VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))
                ON CONFLICT ("name") DO UPDATE SET "definition" = excluded."definition", "registered_at" = excluded."registered_at"
                """, [.text(entity.name), .text(entity.tableName), .text(try Self.sortedJSON(entity)), .text(Timestamp.now())])
            changed = true
        }
        return changed ? try registeredEntities() : registered
    }

    package func registeredViews() throws(StoreError) -> [ViewDefinition] {
        try mapErrors {
            try executor.rows(#"SELECT "definition" FROM importer_view ORDER BY \#(dialect.bytewise(#""name""#))"#, []).compactMap { row in
                try row[0].stringValue.map(Self.view(fromDefinition:))
            }
        }
    }

    /// Creates `view`'s table (dropping an older one) and registers it; a table of that name that
    /// is not a registered view is refused unless `replacing`.
    package func installView(_ view: ViewDefinition, replacing: Bool) throws(StoreError) {
        let sql = try viewSQL(view)
        try mapErrors {
            if try tableExists(named: view.name), !replacing {
                throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name): a table of that name already exists")
            }
            try executor.execute(sql.dropStatement, [])
            for statement in sql.createStatements { try executor.execute(statement, []) }
            try executor.execute("""
                INSERT INTO importer_view ("name", "entity", "definition", "registered_at") VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))
                ON CONFLICT ("name") DO UPDATE SET "entity" = excluded."entity", "definition" = excluded."definition",
                  "registered_at" = excluded."registered_at"
                """, [.text(view.name), .text(view.entity), .text(try Self.sortedJSON(view)), .text(Timestamp.now())])
        }
    }

    /// The SQL of `view` over the store's entities, in this backend's dialect.
    package func viewSQL(_ view: ViewDefinition) throws(StoreError) -> ViewSQL {
        try ViewSQL(view: view, entities: entities, dialect: dialect)
    }

    package func viewRows(_ view: ViewDefinition) throws(StoreError) -> [[Value]: [Value]] {
        let sql = try viewSQL(view)
        return try mapErrors { Self.keyed(try executor.rows(sql.allRows, []), groups: view.groupBy.count) }
    }

    package func recomputedViewRows(_ view: ViewDefinition) throws(StoreError) -> [[Value]: [Value]] {
        let sql = try viewSQL(view)
        return try mapErrors { Self.keyed(try executor.rows(sql.recomputation, []), groups: view.groupBy.count) }
    }

    package func orderedViewRows(_ view: ViewDefinition) throws(StoreError) -> (columns: [String], rows: [[Value]]) {
        let (columns, sql) = try viewSQL(view).orderedRows
        return (columns, try mapErrors { try executor.rows(sql, []) })
    }

    /// Applies the changes view by view, each delta grouped by SQL (`ViewSQL.delta`).
    package func applyViewChanges(_ views: [ViewDefinition], changes range: ClosedRange<Int64>, into effects: inout [ViewEffect]) throws(StoreError) {
        var applied = effects
        for (index, view) in views.enumerated() {
            let applier = ViewDeltaApplier(sql: try viewSQL(view), executor: executor)
            try mapErrors { try applier.apply(range, effect: &applied[index]) }
        }
        effects = applied
    }

    static func sortedJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func view(fromDefinition text: String) throws -> ViewDefinition {
        try JSONDecoder().decode(ViewDefinition.self, from: Data(text.utf8))
    }

    /// Rows of `allRows` or `recomputation` keyed by their first `groups` values.
    static func keyed(_ rows: [[Value]], groups count: Int) -> [[Value]: [Value]] {
        var result: [[Value]: [Value]] = [:]
        for row in rows { result[Array(row.prefix(count))] = Array(row.dropFirst(count)) }
        return result
    }
}
