import ImporterModel
import ImporterStore
import ImporterSupport

/// A feed's writer on PostgreSQL: each batch COPied as it comes, straight into the entity table on
/// a first load while no key repeats, else into the entity's stage (`PostgresImportTransaction`),
/// which `applyUpserts` merges set-based once every feed of the entity is read, finding the
/// repeated keys then. Nothing is held back, so `finish` has nothing left to write.
final class PostgresFeedWriter: FeedWriter {
    private let transaction: PostgresImportTransaction
    private let entity: EntityDescription
    private var phases = PhaseTimes()

    init(transaction: PostgresImportTransaction, entity: EntityDescription) {
        self.transaction = transaction
        self.entity = entity
    }

    func add(_ batch: RecordBatch) throws {
        try phases.time("upsert") { try transaction.upsert(batch, of: entity, columns: batch.columns) }
    }

    func finish() throws -> FeedOutcome {
        FeedOutcome(phases: phases)
    }
}
