import ImporterFetch
import ImporterModel
import ImporterPipeline
import ImporterStore

/// What a command saw of its own work, for its metrics file: an import's phases, records per
/// entity and outcome, and fetches. Empty for a command that does not import, or one that failed
/// before its import returned (its counts were never final).
package struct RunObservation: Sendable {
    /// An import's phases (`PhaseTimes`), in the order they ran.
    package var phases: [(name: String, seconds: Double)] = []
    /// An import's records per entity (in model order) and outcome.
    package var entities: [(name: String, counts: ChangeCounts)] = []
    /// The URL feeds an import fetched (redacted URLs), and whether none of them had changed.
    package var fetched: [SourceFetch] = []
    package var notModified = false
    /// Per entity and attribute, an import's records that left out a field their feed supplies
    /// (summed over its feeds).
    package var absences: [(entity: String, attribute: String, records: Int)] = []
    /// The windows an import's windowed syncs covered.
    package var syncWindows: [SyncWindow] = []
    /// What a `deliver` handed on: the consumer, the transactions its receiver took, and those with
    /// nothing for it that were passed over.
    package var delivered: (consumer: String, transactions: Int, passedOver: Int)?

    package init() {}

    /// Records what an import returned: its phases, its counts per entity, its fetches.
    package mutating func record(_ result: ImportResult) {
        phases = result.phases.phases
        entities = result.entities.map { (name: $0.0, counts: $0.1) }
        fetched = result.fetched
        notModified = result.notModified
        syncWindows = result.syncWindows
        absences = []
        for item in result.absences {
            if let index = absences.firstIndex(where: { $0.entity == item.entity && $0.attribute == item.attribute }) {
                absences[index].records += item.records
            } else {
                absences.append((item.entity, item.attribute, item.records))
            }
        }
    }
}
