/// The steps of an import after its feeds are read, in order, as `ImportSession.onPhase` reports
/// them (a progress display names what the run is doing instead of stalling at the end of reading).
public enum ImportPhase: String, Sendable, CaseIterable {
    /// Key drift pairing and the deletes of a `--sync`.
    case sync
    /// Closing the entities and writing the history transaction.
    case history
    /// Replaying (or building) the derived views.
    case views
    /// Committing the store transaction (or rolling a dry run back).
    case commit

    /// What a progress line says during the phase.
    public var activity: String {
        switch self {
        case .sync: "reconciling keys and deleting what the snapshot no longer holds"
        case .history: "writing history"
        case .views: "replaying views"
        case .commit: "committing"
        }
    }
}
