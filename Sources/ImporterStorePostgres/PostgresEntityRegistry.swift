import Foundation
import ImporterModel
import ImporterStore

/// The entities a PostgreSQL store holds (`importer_entity`), and their creation or migration:
/// the same rules as SQLite's registry (only an added optional attribute changes an existing
/// entity; anything that could lose data is refused with the reason).
extension PostgresStore {
    func loadEntities() throws -> [EntityDescription] {
        let decoder = JSONDecoder()
        return try connection.rows(#"SELECT "definition" FROM importer_entity ORDER BY "position""#).compactMap { row in
            guard case .text(let json) = row[0] else { return nil }
            return try decoder.decode(EntityDescription.self, from: Data(json.utf8))
        }
    }

    public func reloadEntities() throws(StoreError) {
        try mapErrors { entities = try loadEntities() }
    }

    public func ensureEntities(_ wanted: [EntityDescription]) throws {
        let registered = try loadEntities()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for entity in wanted {
            let problems = entity.validate()
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            let schema = PostgresEntitySchema(entity: entity)
            switch try EntityMigration.plan(for: entity, registered: registered) {
            case .upToDate:
                continue
            case .create:
                for statement in schema.createStatements { try connection.execute(statement) }
            case .update(let added):
                for attribute in added { for statement in schema.addColumn(attribute) { try connection.execute(statement) } }
            }
            let definition = String(decoding: try encoder.encode(entity), as: UTF8.self)
            try connection.rows("""
                INSERT INTO importer_entity ("name", "table_name", "definition", "registered_at") VALUES ($1, $2, $3, $4)
                ON CONFLICT ("name") DO UPDATE SET "definition" = excluded."definition", "registered_at" = excluded."registered_at"
                """, [.text(entity.name), .text(entity.tableName), .text(definition), .text(Timestamp.now())])
        }
        entities = try loadEntities()
    }

}
