import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Replaying derived views in PostgreSQL: the deltas of all the views of an entity come from one
/// statement (`ViewDeltaSets`: one scan of the change rows, grouped by every view's groups at
/// once), then each view's groups are updated (`ViewDeltaApplier`). Views whose group expressions
/// `GROUPING(…)` cannot number are replayed one by one.
///
/// The change rows being replayed were written after the table's statistics were last gathered
/// (by this very transaction, in `importer run`), so the planner takes a large range for a few
/// rows and scans it in one process; a range of `parallelRange` ids or more is scanned by parallel
/// workers whatever the estimate (`parallelDelta`, reset right after). A smaller one stays in one
/// process: `GROUPING SETS` has no partial aggregation, so every image row crosses from the
/// workers to the one process that groups them, which costs more than the workers save below
/// that (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
extension PostgresStore {
    static let parallelRange: Int64 = 20_000
    /// The planner settings of a parallel delta, set for the transaction (`SET LOCAL`), in one
    /// round trip.
    static let parallelDelta = "SELECT set_config('parallel_setup_cost', '0', true), set_config('parallel_tuple_cost', '0', true), "
        + "set_config('min_parallel_index_scan_size', '0', true)"
    /// Sets them back to what `RESET` gives (the session's values), in one round trip.
    static let resetParallel = "SELECT set_config(name, reset_val, true) FROM pg_settings "
        + "WHERE name IN ('parallel_setup_cost', 'parallel_tuple_cost', 'min_parallel_index_scan_size')"

    package func applyViewChanges(_ views: [ViewDefinition], changes range: ClosedRange<Int64>, into effects: inout [ViewEffect]) throws(StoreError) {
        var schemas: [ViewSQL] = []
        for view in views { schemas.append(try viewSQL(view)) }
        var applied = effects
        try mapErrors {
            let entities = Dictionary(grouping: schemas.indices, by: { schemas[$0].entity.name }).values.sorted { $0[0] < $1[0] }
            for indices in entities {
                if let sets = ViewDeltaSets(schemas: indices.map { schemas[$0] }) {
                    try applyDeltas(sets, of: indices, range, into: &applied)
                    continue
                }
                for index in indices { try ViewDeltaApplier(sql: schemas[index], executor: executor).apply(range, effect: &applied[index]) }
            }
        }
        effects = applied
    }

    /// The views at `indices` of the store's views, whose deltas `sets` computes in one statement.
    private func applyDeltas(_ sets: ViewDeltaSets, of indices: [Int], _ range: ClosedRange<Int64>, into effects: inout [ViewEffect]) throws {
        let oneTransaction = try ViewDeltaApplier.isOneTransaction(range, sql: sets.schemas[0], executor: executor)
        let parallel = range.upperBound - range.lowerBound + 1 >= Self.parallelRange
        if parallel { try connection.execute(Self.parallelDelta) }
        let rows = try executor.rows(sets.query(oneTransaction: oneTransaction), [.integer(range.lowerBound), .integer(range.upperBound)])
        if parallel { try connection.execute(Self.resetParallel) }
        for (position, deltas) in try sets.deltaRows(rows).enumerated() {
            try ViewDeltaApplier(sql: sets.schemas[position], executor: executor).apply(deltas: deltas, effect: &effects[indices[position]])
        }
    }
}
