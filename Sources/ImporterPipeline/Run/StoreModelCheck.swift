import ImporterModel
import ImporterStore

/// What `importer check` found of the store the model is checked against.
public enum StoreModelCheck: Sendable {
    /// The store accepts the model; the records each entity the feeds write holds, in feed order.
    case held([(entity: String, records: Int)])
    /// The store does not exist yet: checked as an empty one.
    case absent

    /// Checks that the store accepts the entities of `model` that `inputs` write, exactly as a run
    /// registers them (an incompatible model is `StoreError.incompatibleModel`), in `tx`: it
    /// registers them there, so the caller rolls `tx` back.
    public static func check(_ model: Model, inputs: [FeedInput], in tx: StoreWriteTransaction) throws -> StoreModelCheck {
        var names: [String] = []
        for input in inputs where !names.contains(input.mapping.entity) { names.append(input.mapping.entity) }
        let entities = names.compactMap { model.entity(named: $0) }
        try tx.records.ensureEntities(entities)
        return .held(try entities.map { (entity: $0.name, records: try tx.records.recordCount(of: $0)) })
    }
}
