import Foundation

/// The derived views a store maintains, kept in `importer_view` (each also has a consumer row).
public struct ViewRegistry {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func all() throws -> [ViewDefinition] {
        try store.mapErrors {
            try store.connection.rows("SELECT definition FROM importer_view ORDER BY name").compactMap { row in
                try row[0].stringValue.map { try JSONDecoder().decode(ViewDefinition.self, from: Data($0.utf8)) }
            }
        }
    }

    public func view(named name: String) throws -> ViewDefinition {
        guard let view = try all().first(where: { $0.name == name }) else { throw ViewError.unknownView(name) }
        return view
    }

    /// Creates the (empty) tables of views that are new or whose definition changed, and their
    /// consumers. Must run inside a write transaction, after the entities are ensured. Returns the
    /// views created, which the caller builds (views are derived data: a changed definition is
    /// simply rebuilt).
    func ensure(_ views: [ViewDefinition]) throws -> [ViewDefinition] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let registered = try all()
        let consumers = ConsumerRegistry(store: store)
        var created: [ViewDefinition] = []
        for view in views where registered.first(where: { $0.name == view.name }) != view {
            guard let entity = store.entity(named: view.entity) else { continue }
            let problems = view.problems(entity: entity)
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            if try store.connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type = 'table'", [.text(view.name)]) != .integer(0),
               !registered.contains(where: { $0.name == view.name }) {
                throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name): a table of that name already exists")
            }
            let schema = ViewSchema(view: view, entity: entity)
            try store.connection.execute(schema.dropStatement)
            for statement in schema.createStatements { try store.connection.execute(statement) }
            let definition = String(decoding: try encoder.encode(view), as: UTF8.self)
            try store.connection.execute("""
                INSERT INTO importer_view (name, entity, definition, registered_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(name) DO UPDATE SET entity = excluded.entity, definition = excluded.definition, registered_at = excluded.registered_at
                """, [.text(view.name), .text(view.entity), .text(definition), .text(Timestamp.now())])
            if (try? consumers.consumer(named: view.name)) == nil {
                try consumers.add(Consumer(name: view.name, kind: .view, tokenNumber: 0, entities: [view.entity]))
            }
            created.append(view)
        }
        return created
    }
}
