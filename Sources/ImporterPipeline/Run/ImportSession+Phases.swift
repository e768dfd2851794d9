import Foundation
import ImporterFetch
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// An import in its transaction, as a script of named phases: plan, read, close, history, views.
extension ImportSession {
    func importAll(_ feeds: [FeedInput], fetched: [SourceFetch], filled: [URLTemplate.Filled], withholding withheld: [Int: Set<Int>],
                   in tx: StoreWriteTransaction) throws -> ImportAttempt {
        try checkTimestamp(in: tx)
        let plan = try self.plan(feeds, in: tx)
        var ledger = ImportLedger(withholding: withheld)
        defer { ledger.closeMarkedKeys() }
        ledger.requestedWindows = filled
        try readFeeds(feeds, plan: plan, ledger: &ledger)
        if plan.rejects.scouting { return .again(withholding: ledger.rejectedChildren.found) }
        try warnOfNewUnmapped(&ledger, in: tx)
        let counts = try close(feeds, plan: plan, ledger: &ledger)
        let refusals = try plan.guards.refusals(deleted: counts.map { ($0.0, $0.1.deleted, $0.1.inserted) }) + ledger.refusals
            + (try storms(plan.entities, counts: counts, of: plan.transaction, in: tx))
        guard refusals.isEmpty else {
            var result = ImportResult(transactionNumber: nil, entities: counts, rejects: plan.rejects.first)
            (result.refusals, result.warnings, result.syncWindows) = (refusals, ledger.warnings, ledger.syncWindows)
            return .finished(result)
        }
        var result = try writeHistory(feeds, fetched: fetched, counts: counts, plan: plan, ledger: &ledger, in: tx)
        if options.replayViews { try ledger.phases.time("views") { try replayViews(into: &result, created: plan.createdViews, in: tx) } }
        (result.phases, result.syncWindows) = (ledger.phases, ledger.syncWindows)
        return .finished(result)
    }

    /// Plan: the entities the feeds write (their tables made), the views this run creates, the
    /// store's import transaction, the guards, the rejects and the duplicate notes.
    func plan(_ feeds: [FeedInput], in tx: StoreWriteTransaction) throws -> ImportPlan {
        var names: [String] = []
        for feed in feeds where !names.contains(feed.mapping.entity) { names.append(feed.mapping.entity) }
        let entities = try names.map { name throws(ModelError) -> EntityDescription in
            guard let entity = model.entity(named: name) else { throw ModelError.invalid("feed mapping names unknown entity '\(name)'") }
            return entity
        }
        try evolve(names, in: tx)
        try store.ensureEntities(entities)
        try tx.records.registerRelationships(model.relationships.filter { names.contains($0.child) })
        let created = options.replayViews ? try tx.ensureViews(model.views, entities: store.entities) : []
        let transaction = try tx.records.beginImport(entities)
        return ImportPlan(entities: entities, createdViews: created, transaction: transaction,
                          guards: try SyncGuards(options: options, entities: entities, children: Set(names.filter { model.relationship(toChild: $0) != nil }),
                                                 recordCount: tx.records.recordCount(of:)),
                          rejects: RunRejects(limit: options.maxRejects, sink: rejectSink, transaction: transaction),
                          duplicates: DuplicateNotes(keyNames: Dictionary(entities.map { ($0.name, $0.uniqueKey) }) { first, _ in first }))
    }

    /// Read: every feed read, mapped and upserted in batches, then each entity's upserts applied.
    func readFeeds(_ feeds: [FeedInput], plan: ImportPlan, ledger: inout ImportLedger) throws {
        let clock = ContinuousClock()
        let began = clock.now
        var warnings: [String] = []
        for (index, feed) in feeds.enumerated() { warnings += try read(feed, index: index, plan: plan, ledger: &ledger) }
        // An attempt read again says nothing: the next one says it all.
        if !plan.rejects.scouting { ledger.warn(warnings, logger: logger) }
        ledger.phases.add("read wait", PhaseTimes.seconds(began.duration(to: clock.now)) - (ledger.phases["upsert"] ?? 0) - (ledger.phases["sort"] ?? 0))
        for entity in plan.entities {
            let log: DuplicateLog
            do {
                log = try ledger.phases.time("upsert") { try plan.transaction.applyUpserts(entity) }
            } catch {
                throw refusedWrite(error, what: "a record of \(Self.sources(of: feeds.filter { $0.mapping.entity == entity.name }).joined(separator: ", "))")
            }
            try plan.note(log)
        }
    }

    /// Close: key drift reconciled and sync deletes made, entity by entity (a child entity's
    /// deletes follow its parent's: its snapshot, then the parent's delete rule), then each
    /// entity's changes recorded and counted, its rejects included.
    func close(_ feeds: [FeedInput], plan: ImportPlan, ledger: inout ImportLedger) throws -> [(String, ChangeCounts)] {
        try checkCancellation()
        if options.sync || plan.entities.contains(where: { model.drift(of: $0.name)?.on == .always }) { onPhase?(.sync) }
        for entity in plan.entities {
            try deleteMarked(entity, plan: plan, ledger: &ledger)
            // Key drift is reconciled before sync deletes are decided (or in every run, when the
            // rule says so).
            if let drift = model.drift(of: entity.name), options.sync || drift.on == .always {
                var drifting = entity
                drifting.drift = drift
                // A windowed sync pairs only stored records inside its window: those outside it are
                // not the feed's to move (and on a large store, not to be read).
                let window = options.sync ? try syncWindow(of: entity, feeds: feeds, ledger: ledger) : nil
                ledger.rekeyed[entity.name] = try ledger.phases.time("drift") { try plan.transaction.reconcileDrift(drifting, within: window) }
            }
            if let relationship = model.relationship(toChild: entity.name), let parent = plan.entities.first(where: { $0.name == relationship.parent }) {
                try closeChildren(entity, of: parent, relationship, plan: plan, ledger: &ledger)
                continue
            }
            if options.sync { try syncDeletes(entity, feeds: feeds, plan: plan, ledger: &ledger) }
        }
        onPhase?(.history)
        var counts: [(String, ChangeCounts)] = []
        for entity in plan.entities {
            var count = try ledger.phases.time("history") { try plan.transaction.closeEntity(entity) }
            count.rejected = plan.rejects.counts[entity.name] ?? 0
            counts.append((entity.name, count))
        }
        ledger.warn(plan.duplicates.warnings, logger: logger)
        return counts
    }

    /// Sync: deletes `entity`'s stored records no feed holds (in its window, for a windowed sync),
    /// keeping those of its rejects; refused when a reject's key could not be read.
    private func syncDeletes(_ entity: EntityDescription, feeds: [FeedInput], plan: ImportPlan, ledger: inout ImportLedger) throws {
        if let unkeyed = ledger.unkeyedRejects[entity.name], unkeyed > 0 {
            return ledger.refusals.append(.unkeyedRejects(entity: entity.name, count: unkeyed))
        }
        do {
            let keeping = ledger.rejectedKeys[entity.name] ?? []
            let window = try syncWindow(of: entity, feeds: feeds, ledger: ledger)
            if let window {
                ledger.syncWindows.append(window)
                plan.guards.windowed(entity.name, held: try plan.transaction.recordCount(entity, within: window))
            } else if feeds.contains(where: { $0.mapping.entity == entity.name && $0.mapping.syncScope != nil }) {
                return  // A scoped feed that read nothing covers no window: nothing to delete.
            }
            ledger.deleted[entity.name, default: 0] += try ledger.phases.time("sync deletes") {
                try plan.transaction.deleteRecordsNotWritten(entity, keeping: keeping, within: window)
            }
        } catch let error as ImportError {
            throw error
        } catch {
            throw refusedWrite(error, what: "the sync deletes of \(entity.name) (records no feed holds)")
        }
    }

    /// Deletes the records `entity`'s feeds marked deleted (`delete-marker`), before drift and sync
    /// see them; a marked record the store does not hold is counted in a warning.
    private func deleteMarked(_ entity: EntityDescription, plan: ImportPlan, ledger: inout ImportLedger) throws {
        guard let marked = ledger.markedKeys[entity.name] else { return }
        var deleted = 0
        let keys = marked.reduce(0) { $0 + $1.count }
        do {
            try ledger.phases.time("sync deletes") {
                for feed in marked { try feed.forEachChunk { chunk in deleted += try plan.transaction.deleteRecords(entity, keys: chunk) } }
            }
        } catch {
            throw refusedWrite(error, what: "the deletes of \(entity.name) records marked deleted")
        }
        ledger.deleted[entity.name, default: 0] += deleted
        plan.guards.markedDeletes(of: entity)
        if deleted < keys {
            ledger.warn(["\(keys - deleted) \(entity.name) record(s) marked deleted are not in the store: nothing to delete"], logger: logger)
        }
    }

    /// History: the transaction written with its metadata and changes (when anything changed), and
    /// the fetched sources recorded.
    func writeHistory(_ feeds: [FeedInput], fetched: [SourceFetch], counts: [(String, ChangeCounts)], plan: ImportPlan,
                      ledger: inout ImportLedger, in tx: StoreWriteTransaction) throws -> ImportResult {
        var metadata = TransactionMetadata(author: options.author, context: options.context, sources: Self.sources(of: feeds))
        metadata.timestamp = options.timestamp
        let wrote = try ledger.phases.time("history") { try plan.transaction.finish(metadata: metadata, counts: counts) }
        let number = wrote ? plan.transaction.number : nil
        try recordSources(fetched, transaction: number, in: tx)
        var result = ImportResult(transactionNumber: number, entities: counts, rejects: plan.rejects.first)
        (result.warnings, result.absences) = (ledger.warnings, ledger.absences)
        result.rejectRun = plan.transaction.rejectRun
        return result
    }
}
