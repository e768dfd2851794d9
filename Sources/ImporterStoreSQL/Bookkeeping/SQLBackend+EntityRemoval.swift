import Foundation
import ImporterModel
import ImporterStore

/// `removed-entities:` on both backends, inside the migration's transaction: the entity's table
/// goes, with the views over it (derived data, and consumers of its history) and its relationship
/// to a parent; its change table
/// and its definition stay (the store's retired entities), so `history` still reads its past
/// changes and a purge still removes them. Refused (78) while it has children the migration keeps.
extension SQLBackend {
    func removeEntity(_ name: String, removing removed: Set<String>) throws {
        guard let entity = try registeredEntities().first(where: { $0.name == name }) else { return }
        let relationships = try registeredRelationships()
        if let kept = relationships.first(where: { $0.parent == name && !removed.contains($0.child) }) {
            throw StoreError.incompatibleModel(entity: name, reason: "remove entity \(name): its children \(kept.child) (relationship '\(kept.name)') would stay; "
                + "remove them too (removed-entities: [\(name), \(kept.child)])")
        }
        let registered = try registeredEntities()
        for view in try registeredViews() where view.entity == name {
            try executor.execute(try ViewSQL(view: view, entities: registered, dialect: dialect).dropStatement, [])
            try executor.execute(#"DELETE FROM importer_view WHERE "name" = \#(p(1))"#, [.text(view.name)])
            // A view is the consumer of its entity's history: it no longer holds the purge back.
            _ = try deleteConsumer(named: view.name)
        }
        try executor.execute("DROP TABLE \(tables(of: entity).table)", [])
        try executor.execute(#"DELETE FROM importer_entity WHERE "name" = \#(p(1))"#, [.text(name)])
        let retired = try retiredEntities().filter { $0.name != name } + [entity]
        try setMetadata([(key: Self.retiredEntitiesKey, value: .text(String(decoding: try JSONEncoder().encode(retired), as: UTF8.self)))])
        let kept = relationships.filter { $0.child != name }
        if kept != relationships { try setMetadata([(key: Self.relationshipsKey, value: .text(try Self.sortedJSON(kept)))]) }
    }

    /// The entities a migration removed, whose change tables keep their history.
    package func retiredEntities() throws -> [EntityDescription] {
        guard let json = try metadata(Self.retiredEntitiesKey)?.stringValue else { return [] }
        return try JSONDecoder().decode([EntityDescription].self, from: Data(json.utf8))
    }

    package func removedEntityNames() throws(StoreError) -> [String] {
        try mapErrors { try retiredEntities().map(\.name) }
    }

    /// Refuses (78) a new entity named like a removed one, or in its table: the removed entity's
    /// history keeps both.
    func checkNotRetired(_ entity: EntityDescription) throws {
        guard let retired = try retiredEntities().first(where: { $0.name == entity.name || $0.tableName.lowercased() == entity.tableName.lowercased() }) else { return }
        throw StoreError.incompatibleModel(entity: entity.name, reason: "entity \(retired.name) (table '\(retired.tableName)') was removed by a migration and its history "
            + "keeps its name and tables: give the new entity another name and table")
    }

    static var retiredEntitiesKey: String { "retired-entities" }
}
