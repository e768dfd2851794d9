import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore

/// The derived views a store maintains, kept in `importer_view` (each also has a consumer row),
/// read through the caller's snapshot.
extension StoreSnapshot {
    public func allViews() throws -> [ViewDefinition] {
        try views.registeredViews()
    }

    public func view(named name: String) throws -> ViewDefinition {
        guard let view = try allViews().first(where: { $0.name == name }) else { throw ViewError.unknownView(name) }
        return view
    }
}

extension StoreWriteTransaction {
    /// Creates the (empty) tables of views that are new or whose definition changed, and their
    /// consumers; views over an entity not among `entities` (the store's, once ensured) are left
    /// out. Returns the views created, which the caller builds (views are derived data: a changed
    /// definition is simply rebuilt).
    package func ensureViews(_ views: [ViewDefinition], entities: [EntityDescription]) throws -> [ViewDefinition] {
        let registered = try snapshot.allViews()
        var created: [ViewDefinition] = []
        for view in views where registered.first(where: { $0.name == view.name }) != view {
            guard let entity = entities.first(where: { $0.name == view.entity }) else { continue }
            let problems = view.problems(entity: entity)
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            try self.views.installView(view, replacing: registered.contains { $0.name == view.name })
            if (try? snapshot.consumer(named: view.name)) == nil {
                try addConsumer(Consumer(name: view.name, kind: .view, tokenNumber: 0, entities: [view.entity]))
            }
            created.append(view)
        }
        return created
    }
}
