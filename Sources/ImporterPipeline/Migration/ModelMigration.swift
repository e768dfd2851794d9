import Crypto
import ImporterModel
import ImporterStore
import ImporterViews

/// Bringing a store to a new model (`importer migrate`, `run --migrate`, `model diff`): the steps
/// between the store's registered entities and the model's (`ModelDiff`), applied in the caller's
/// write transaction and recorded as history (context `migration`) with the model's new version.
///
/// A service over the handles it is given: it plans in a snapshot and writes in a transaction.
public struct ModelMigration: Sendable {
    public let model: Model
    /// Where the model came from (the migration transaction's source).
    public let source: String

    public init(model: Model, source: String) {
        self.model = model
        self.source = source
    }

    /// The model as the store keeps it: its text as `model show` writes it, and that text's digest.
    public var stored: StoredModel {
        let text = ModelFile.yaml(model)
        return StoredModel(digest: Self.digest(text), text: text)
    }

    /// SHA-256 of `text`, in hex.
    public static func digest(_ text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// The steps from what `store` holds to the model, for the entities named (all by default),
    /// and the model's views whose definition differs from the store's `views` (`rebuildView`),
    /// in the order a migration runs them.
    public func steps(from registered: [EntityDescription], entities names: [String]? = nil, views: [ViewDefinition] = []) -> [MigrationStep] {
        var scoped = model
        if let names {
            // A run's steps are those of the entities it writes: it removes none.
            scoped.entities = model.entities.filter { names.contains($0.name) }
            scoped.removedEntities = []
        }
        let steps = ModelDiff.steps(from: registered, to: scoped)
        // A rename brings the views over it along (`renameAttribute`): compared once renamed.
        let renamed = views.map { view in
            steps.reduce(into: view) { view, step in
                if case .renameEntity(view.entity, let to) = step { view.entity = to }
                guard case .renameAttribute(view.entity, let from, let to) = step else { return }
                view.groupBy = view.groupBy.map { $0 == from ? to : $0 }
                for index in view.aggregates.indices where view.aggregates[index].attribute == from { view.aggregates[index].attribute = to }
            }
        }
        let held = Set(registered.map(\.name) + steps.compactMap { if case .renameEntity(_, let to) = $0 { to } else { nil } })
        // A view whose definition changed, or that reads values the migration fills without change rows.
        let filled = Set(steps.flatMap { step -> [String] in
            if case .changeOptionality(let entity, let attribute, true, _?) = step { return [entity + "." + attribute] }
            if case .takeParentKey(let entity, let link) = step { return link.attributes.map { entity + "." + $0 } }
            return []
        })
        let rebuilt = model.views.filter { view in
            held.contains(view.entity) && (renamed.first { $0.name == view.name } != view
                || (view.groupBy + view.aggregates.compactMap(\.attribute)).contains { filled.contains(view.entity + "." + $0) })
        }
        // Listed in the order the migration runs them (`MigrationStep.phase`).
        return (steps + rebuilt.map { .rebuildView($0.name) }).enumerated()
            .sorted { ($0.element.phase, $0.offset) < ($1.element.phase, $1.offset) }.map(\.element)
    }

    /// What of the model matches nothing `registered` holds (`ModelDiff.unmatchedNames`), to warn of.
    public func unmatchedNames(from registered: [EntityDescription], removed: [String]) -> [String] {
        ModelDiff.unmatchedNames(from: registered, removed: removed, to: model)
    }

    /// Applies `steps` in `tx` as `author`, records the model's version with them, and rebuilds the
    /// views whose definition changed; returns the migration's transaction number.
    public func apply(_ steps: [MigrationStep], author: String, in tx: StoreWriteTransaction, store: Store) throws -> Int64 {
        let touched = Set(steps.map(\.entity))
        let entities = model.entities.filter { touched.contains($0.name) || store.entity(named: $0.name) != nil }
        let metadata = TransactionMetadata(author: author, context: "migration", sources: [source])
        let number = try tx.records.migrate(steps, to: entities, metadata: metadata)
        // The relationships as the model declares them (a child's own key may have changed).
        let names = Set(entities.map(\.name))
        try tx.records.registerRelationships(model.relationships.filter { names.contains($0.child) && names.contains($0.parent) })
        var version = stored
        version.transaction = number
        version.steps = steps.map(\.description)
        _ = try tx.records.registerModel(version)
        try store.reloadEntities()
        let named = Set(steps.compactMap { step -> String? in if case .rebuildView(let name) = step { name } else { nil } })
        if !named.isEmpty {
            // Installed anew when their definition changed; rebuilt as they are when the migration filled values they read.
            let installed = try tx.ensureViews(model.views, entities: store.entities)
            let rebuilt = installed + model.views.filter { named.contains($0.name) && !installed.contains($0) }
            _ = try ViewMaintainer(entities: store.entities).rebuild(rebuilt, in: tx)
        }
        return number
    }
}
