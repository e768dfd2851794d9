import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore

/// The derived views a store maintains, kept in `importer_view` (each also has a consumer row).
public struct ViewRegistry {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func all() throws -> [ViewDefinition] {
        try store.viewTables.registeredViews()
    }

    public func view(named name: String) throws -> ViewDefinition {
        guard let view = try all().first(where: { $0.name == name }) else { throw ViewError.unknownView(name) }
        return view
    }

    /// Creates the (empty) tables of views that are new or whose definition changed, and their
    /// consumers. Must run inside a write transaction, after the entities are ensured. Returns the
    /// views created, which the caller builds (views are derived data: a changed definition is
    /// simply rebuilt).
    package func ensure(_ views: [ViewDefinition]) throws -> [ViewDefinition] {
        let registered = try all()
        let consumers = ConsumerRegistry(store: store)
        var created: [ViewDefinition] = []
        for view in views where registered.first(where: { $0.name == view.name }) != view {
            guard let entity = store.entity(named: view.entity) else { continue }
            let problems = view.problems(entity: entity)
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            try store.viewTables.installView(view, replacing: registered.contains { $0.name == view.name })
            if (try? consumers.consumer(named: view.name)) == nil {
                try consumers.add(Consumer(name: view.name, kind: .view, tokenNumber: 0, entities: [view.entity]))
            }
            created.append(view)
        }
        return created
    }
}
