import ImporterModel

/// How one entity's records reach PostgreSQL in an import, without a server: each transition
/// returns what `PostgresImportTransaction` must do (as `CopyQueueStateMachine` does for COPY).
///
/// States: `idle` until the first batch; a first load then goes `direct` (batches COPied straight
/// into the entity table while `DirectKeys` admits them), anything else `staged`; the first batch
/// refused direct (a repeated key, other columns) moves a direct load to `staged` for good;
/// `applied` once the stage is merged. Invariants: no batch is accepted once applied; a batch goes
/// direct only if every batch before it did, with the same columns; applying is done once.
struct EntityLoadStateMachine {
    enum State {
        case idle
        /// A first load's batches go straight into the table; the keys admitted so far.
        case direct(DirectKeys)
        case staged
        case applied
    }

    enum BatchAction: Equatable {
        /// Create the stage and its bookkeeping, then ask again.
        case begin
        /// COPY the batch straight into the entity table.
        case copyDirect
        /// COPY it into the stage of the columns it supplies.
        case stage
        /// Records after the apply: refuse them (a broken invariant).
        case refuse
    }

    enum ApplyAction: Equatable {
        /// Applied already: nothing to do.
        case none
        /// No batch came: restore what the load deferred, nothing to merge.
        case nothingStaged
        /// Merge the stage (and restore what the load deferred).
        case merge
    }

    private(set) var state = State.idle

    /// The entity's first batch has been begun: a first load goes direct (its keys admitted by
    /// `keys`), anything else is staged.
    mutating func begun(firstLoad: Bool, keys: @autoclosure () -> DirectKeys) {
        guard case .idle = state else { return }
        state = firstLoad ? .direct(keys()) : .staged
    }

    /// What to do with `batch`, whose columns are (`sameColumns`) or are not the first batch's.
    mutating func batch(_ batch: RecordBatch, sameColumns: Bool) -> BatchAction {
        switch state {
        case .idle: return .begin
        case .direct(var keys):
            // The state is replaced first, so that the keys are not copied while admitting.
            state = .staged
            guard sameColumns, keys.admit(batch) else { return .stage }
            state = .direct(keys)
            return .copyDirect
        case .staged: return .stage
        case .applied: return .refuse
        }
    }

    mutating func apply() -> ApplyAction {
        switch state {
        case .applied: return .none
        case .idle:
            state = .applied
            return .nothingStaged
        case .direct, .staged:
            state = .applied
            return .merge
        }
    }

    var isApplied: Bool {
        if case .applied = state { true } else { false }
    }
}
