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

    /// What `ensure` would do for `entity` given the registered definition.
    enum Plan: Equatable {
        case upToDate
        case create
        case update(adding: [AttributeDescription])
    }

    static func plan(for entity: EntityDescription, registered: EntityDescription?) throws(StoreError) -> Plan {
        guard let registered else { return .create }
        if registered == entity { return .upToDate }
        func refuse(_ reason: String) -> StoreError { .incompatibleModel(entity: entity.name, reason: reason) }
        guard registered.tableName == entity.tableName else {
            throw refuse("the store keeps it in table '\(registered.tableName)', the model says '\(entity.tableName)'")
        }
        guard registered.uniqueKey == entity.uniqueKey else {
            throw refuse("the unique key is (\(registered.uniqueKey.joined(separator: ", "))) in the store and (\(entity.uniqueKey.joined(separator: ", "))) in the model")
        }
        for old in registered.attributes {
            guard let new = entity.attribute(named: old.name) else {
                throw refuse("attribute '\(old.name)' is in the store but not in the model (removing it would lose data)")
            }
            guard new.type == old.type else {
                throw refuse("attribute '\(old.name)' is \(old.type.rawValue) in the store and \(new.type.rawValue) in the model")
            }
            guard new.isOptional == old.isOptional else {
                throw refuse("attribute '\(old.name)' is \(old.isOptional ? "optional" : "required") in the store and \(new.isOptional ? "optional" : "required") in the model")
            }
        }
        let added = entity.attributes.filter { registered.attribute(named: $0.name) == nil }
        for attribute in added where !attribute.isOptional {
            throw refuse("new attribute '\(attribute.name)' must be optional: existing records have no value for it")
        }
        return .update(adding: added)
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
            let current = registered.first { $0.name == entity.name }
            let plan = try plan(for: entity, registered: current)
            let schema = EntitySchema(entity: entity)
            switch plan {
            case .upToDate:
                continue
            case .create:
                if let other = registered.first(where: { $0.tableName.lowercased() == entity.tableName.lowercased() }) {
                    throw StoreError.incompatibleModel(entity: entity.name, reason: "table '\(entity.tableName)' already holds entity \(other.name)")
                }
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
