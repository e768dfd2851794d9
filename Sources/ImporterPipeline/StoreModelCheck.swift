import ImporterModel
import ImporterStore

/// What `importer check` found of the store the model is checked against.
public enum StoreModelCheck: Sendable {
    /// The store accepts the model; the records each entity the feeds write holds, in feed order.
    case held([(entity: String, records: Int)])
    /// The store does not exist yet: checked as an empty one.
    case absent

    /// Checks that `store` accepts the entities of `model` that `inputs` write, exactly as a run
    /// registers them (an incompatible model is `StoreError.incompatibleModel`), inside a write
    /// transaction that is always rolled back.
    public static func check(_ model: Model, inputs: [FeedInput], against store: Store) throws -> StoreModelCheck {
        var names: [String] = []
        for input in inputs where !names.contains(input.mapping.entity) { names.append(input.mapping.entity) }
        let entities = names.compactMap { model.entity(named: $0) }
        return .held(try store.inTransaction {
            try store.ensureEntities(entities)
            return .rollback(try entities.map { (entity: $0.name, records: try store.records.recordCount(of: $0)) })
        })
    }
}
