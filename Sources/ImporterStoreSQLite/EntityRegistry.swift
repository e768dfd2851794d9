import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// The entities a store holds, as it recorded them in `importer_entity`, and the checks that keep
/// a model and a store compatible.
///
/// The only model change applied to an existing store is adding an optional attribute (a new
/// nullable column): anything else (a removed or retyped attribute, another key, another table)
/// could lose data and is refused with the reason.
enum EntityRegistry {
    static func load(_ connection: Connection) throws -> [EntityDescription] {
        let decoder = JSONDecoder()
        return try connection.rows("SELECT definition FROM importer_entity ORDER BY rowid").compactMap { row in
            guard case .text(let json) = row[0] else { return nil }
            return try decoder.decode(EntityDescription.self, from: Data(json.utf8))
        }
    }

    /// Creates or migrates the tables of `entities` so the store matches them. Must run inside a
    /// write transaction. Returns the store's entities afterwards.
    static func ensure(_ entities: [EntityDescription], in connection: Connection, registered: [EntityDescription]) throws -> [EntityDescription] {
        var result = registered
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for entity in entities {
            let problems = entity.validate()
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            let schema = EntitySchema(entity: entity)
            switch try EntityMigration.plan(for: entity, registered: registered) {
            case .upToDate:
                continue
            case .create:
                for statement in schema.createStatements { try connection.execute(statement) }
            case .update(let added):
                for attribute in added {
                    for statement in schema.addColumn(attribute) { try connection.execute(statement) }
                }
            }
            let definition = String(decoding: try encoder.encode(entity), as: UTF8.self)
            try connection.execute("""
                INSERT INTO importer_entity(name, table_name, definition, registered_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET definition = excluded.definition, registered_at = excluded.registered_at
                """, [.text(entity.name), .text(entity.tableName), .text(definition), .text(Timestamp.now())])
            if let index = result.firstIndex(where: { $0.name == entity.name }) {
                result[index] = entity
            } else {
                result.append(entity)
            }
        }
        return result
    }
}

extension SQLiteStore {
    /// Makes the store hold `entities` (creating or migrating their tables). Must be called inside
    /// a write transaction, so a failed import also undoes it.
    public func ensureEntities(_ entities: [EntityDescription]) throws {
        self.entities = try EntityRegistry.ensure(entities, in: connection, registered: try EntityRegistry.load(connection))
    }
}
