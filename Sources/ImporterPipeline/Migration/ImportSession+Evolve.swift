import ImporterModel
import ImporterStore

extension ImportSession {
    /// Brings the store to the model for the entities `names` the run writes, before it registers
    /// them: what registering does by itself (new entities, optional attributes) is left to it
    /// when that is all; any other step is applied by `--migrate` when it is automatic (a rename),
    /// with the registering ones (the migration writes the definitions registering compares), else
    /// the run is refused naming the steps and `importer migrate`. Then records the model's version.
    func evolve(_ names: [String], in tx: StoreWriteTransaction) throws {
        let migration = ModelMigration(model: model, source: options.modelSource)
        let all = migration.steps(from: store.entities, entities: names)
        let steps = all.filter { !$0.isDoneByRegistering }
        if let first = steps.first {
            guard options.migrate, steps.allSatisfy(\.isAutomatic) else {
                let listed = steps.map(\.description).joined(separator: "; ")
                throw StoreError.incompatibleModel(entity: first.entity, reason: "the store holds another version of the model; migrating takes: \(listed) "
                    + "(see the plan with `importer migrate --plan --model FILE`, apply it with `importer migrate --model FILE`"
                    + (steps.allSatisfy(\.isAutomatic) ? ", or run with --migrate)" : ")"))
            }
            _ = try migration.apply(all, author: options.author, in: tx, store: store)
        }
        _ = try tx.records.registerModel(migration.stored)
    }
}

extension MigrationStep {
    /// Whether registering the model's entities does it (as runs always have): a new entity, an
    /// optional attribute, a new definition, a changed view (rebuilt by the run), an index.
    var isDoneByRegistering: Bool {
        switch self {
        case .addEntity, .changeDefinition, .rebuildView, .addIndex, .dropIndex: true
        case .addAttribute(_, let attribute, let fill): attribute.isOptional && fill == nil
        default: false
        }
    }
}
