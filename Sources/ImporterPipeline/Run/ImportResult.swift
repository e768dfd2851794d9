import ImporterFetch
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// What an import did, before any report is rendered.
public struct ImportResult: Sendable {
    /// The history transaction written, or nil when nothing changed.
    public var transactionNumber: Int64?
    /// Per-entity counts, in model order.
    public var entities: [(String, ChangeCounts)]
    /// The first rejected records (at most 100), when the import tolerated some.
    public var rejects: [Reject]
    /// Views the run could not replay (their token expired), as messages.
    public var warnings: [String] = []
    /// What the run did to each derived view (built, replayed).
    public var views: [ViewEffect] = []
    /// The run number its rejects are stored under (nil when it rejected nothing).
    public var rejectRun: Int64?
    /// Why a sync guard refused the run (empty when it was not refused); a refused run is rolled
    /// back, and its counts are what it would have done.
    public var refusals: [Refusal] = []
    /// Where the run's time went (see `PhaseTimes`); `commit` is added once the store committed.
    public var phases = PhaseTimes()
    /// The feeds fetched from URLs, as the store now records them.
    public var fetched: [SourceFetch] = []
    /// Every feed is a URL whose source had not changed since its last import: nothing was read.
    public var notModified = false
    /// The windows a windowed sync covered, per entity (`sync: {scope: …}`).
    public var syncWindows: [SyncWindow] = []
    /// Per feed and attribute, the records that left out a field the feed supplies (stored as null).
    public var absences: [MappedFeed.FieldAbsence] = []

    public var totals: ChangeCounts { entities.reduce(ChangeCounts()) { $0 + $1.1 } }
}
