import ImporterFeeds
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews
import Logging

/// An import's plan, made once its transaction is open: the entities its feeds write, the views
/// this run creates, the store's import transaction, and what watches the run (sync guards, the
/// rejects, the duplicate notes).
struct ImportPlan {
    let entities: [EntityDescription]
    let createdViews: [ViewDefinition]
    let transaction: any ImportTransaction
    let guards: SyncGuards
    let rejects: RunRejects
    let duplicates: DuplicateNotes

    /// Takes what a store logged of repeated keys: the rejected ones become rejects, the others
    /// warnings.
    func note(_ log: DuplicateLog) throws {
        guard !log.isEmpty else { return }
        for reject in duplicates.note(log) { try rejects.record(reject) }
    }
}

/// How an attempt at an import ends: finished, or to be rolled back and read again withholding
/// the records found with a rejected child (`RejectedChildren`).
enum ImportAttempt {
    case finished(ImportResult)
    case again(withholding: [Int: Set<Int>])
}

/// What an import has gathered as its phases go: where the time went, the feeds' warnings and the
/// fields they left out.
struct ImportLedger {
    var phases = PhaseTimes()
    var warnings: [String] = []
    var absences: [MappedFeed.FieldAbsence] = []
    /// Per child entity, the parents whose array of children the feeds left out.
    var keptParents: [String: [[Value]]] = [:]
    /// The record indices the last feed of parents rejected (its children's feeds leave theirs out).
    var rejectedRecords: Set<Int> = []
    /// The URL values the run's feeds were fetched with (a windowed sync's requested window), the
    /// range of each scoped entity's scope values read, and the windows its syncs covered.
    var requestedWindows: [URLTemplate.Filled] = []
    var scopeRanges: [String: ScopeRange] = [:]
    var syncWindows: [SyncWindow] = []
    /// Records rejected for a child, withheld or found this attempt.
    var rejectedChildren: RejectedChildren
    /// Per entity, the keys of its rejected records (a sync keeps them), and how many rejected
    /// records had no readable key (a sync cannot tell which stored records they are).
    var rejectedKeys: [String: [[Value]]] = [:]
    var unkeyedRejects: [String: Int] = [:]
    /// Per entity, the keys of the records its feeds marked deleted (`delete-marker`), per feed.
    var markedKeys: [String: [MarkedKeys]] = [:]
    /// Records each entity's close deleted (sync, snapshot and cascade deletes).
    var deleted: [String: Int] = [:]
    /// Records each entity's close re-keyed (key drift).
    var rekeyed: [String: Int] = [:]
    /// Per feed read, the fields its records hold and its mapping does not read.
    var unmapped: [(mapping: String, source: String, fields: [UnmappedField])] = []
    /// Refusals met while closing (a parent's delete a relationship denies).
    var refusals: [Refusal] = []

    init(withholding withheld: [Int: Set<Int>] = [:]) {
        rejectedChildren = RejectedChildren(withholding: withheld)
        for phase in ["read", "read wait"] { phases.add(phase, 0) }
    }

    /// Closes the spill files of the marked keys (once their deletes ran, or the run failed).
    mutating func closeMarkedKeys() {
        markedKeys = markedKeys.mapValues { feeds in
            feeds.map { feed in
                var feed = feed
                feed.close()
                return feed
            }
        }
    }

    /// Takes what the reading of a feed of `entity` gathered besides its warnings.
    mutating func absorb(_ end: FeedReadAhead.Position, entity: String, mapping: String, source: String) {
        phases.add("read", end.readingSeconds)
        absences += end.absences
        rejectedKeys[entity, default: []] += end.rejectedKeys
        unkeyedRejects[entity, default: 0] += end.unkeyedRejects
        if let marked = end.markedKeys { markedKeys[entity, default: []].append(marked) }
        if !end.unmapped.isEmpty { unmapped.append((mapping, source, end.unmapped)) }
    }

    /// Keeps `warnings` for the report, logging each.
    mutating func warn(_ warnings: [String], logger: Logger) {
        for warning in warnings { logger.warning("\(warning)") }
        self.warnings += warnings
    }
}
