import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore

/// The derived views a store maintains, kept in `importer_view` (each also has a consumer row). A
/// service over the handle it is given (GRDB style).
public struct ViewRegistry {
    public init() {}

    public func all(in snapshot: StoreSnapshot) throws -> [ViewDefinition] {
        try snapshot.views.registeredViews()
    }

    public func view(named name: String, in snapshot: StoreSnapshot) throws -> ViewDefinition {
        guard let view = try all(in: snapshot).first(where: { $0.name == name }) else { throw ViewError.unknownView(name) }
        return view
    }

    /// Creates, in `tx`, the (empty) tables of views that are new or whose definition changed, and
    /// their consumers; views over an entity not among `entities` (the store's, once ensured) are
    /// left out. Returns the views created, which the caller builds (views are derived data: a
    /// changed definition is simply rebuilt).
    package func ensure(_ views: [ViewDefinition], entities: [EntityDescription], in tx: StoreWriteTransaction) throws -> [ViewDefinition] {
        let registered = try all(in: tx.snapshot)
        let consumers = ConsumerRegistry()
        var created: [ViewDefinition] = []
        for view in views where registered.first(where: { $0.name == view.name }) != view {
            guard let entity = entities.first(where: { $0.name == view.entity }) else { continue }
            let problems = view.problems(entity: entity)
            guard problems.isEmpty else { throw ModelError.problems(problems) }
            try tx.views.installView(view, replacing: registered.contains { $0.name == view.name })
            if (try? consumers.consumer(named: view.name, in: tx.snapshot)) == nil {
                try consumers.add(Consumer(name: view.name, kind: .view, tokenNumber: 0, entities: [view.entity]), in: tx)
            }
            created.append(view)
        }
        return created
    }
}
