import ImporterStore

/// What a run did to a record, as the `outcome` label says it: the counts of the run's JSON report
/// (`ChangeCounts`), under the same names.
package enum RecordOutcome: String, Sendable, CaseIterable {
    case inserted
    case updated
    case deleted
    case unchanged
    case rejected
    /// Records the feed held more than once (merged into one).
    case duplicates
    /// Updates that moved a record's key within its drift tolerance (also counted in `updated`).
    case rekeyed

    /// How many records of `counts` had this outcome.
    package func count(in counts: ChangeCounts) -> Int {
        switch self {
        case .inserted: counts.inserted
        case .updated: counts.updated
        case .deleted: counts.deleted
        case .unchanged: counts.unchanged
        case .rejected: counts.rejected
        case .duplicates: counts.duplicates
        case .rekeyed: counts.rekeyed
        }
    }
}
