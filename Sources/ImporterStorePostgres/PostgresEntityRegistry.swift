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
            switch try Self.plan(for: entity, registered: registered.first { $0.name == entity.name }) {
            case .upToDate:
                continue
            case .create:
                if let other = registered.first(where: { $0.tableName.lowercased() == entity.tableName.lowercased() }) {
                    throw StoreError.incompatibleModel(entity: entity.name, reason: "table '\(entity.tableName)' already holds entity \(other.name)")
                }
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

    enum Plan: Equatable {
        case upToDate, create
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
            guard new.type == old.type, new.isOptional == old.isOptional else {
                throw refuse("attribute '\(old.name)' is declared differently in the store and in the model")
            }
        }
        let added = entity.attributes.filter { registered.attribute(named: $0.name) == nil }
        for attribute in added where !attribute.isOptional {
            throw refuse("new attribute '\(attribute.name)' must be optional: existing records have no value for it")
        }
        return .update(adding: added)
    }
}
