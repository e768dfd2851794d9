import ImporterModel
import ImporterStore

/// Reading one feed of an import: its records mapped, their batches handed to the feed writer
/// the store owns (`FeedWriter`).
extension ImportSession {
    /// Reads feed `index` of the run and writes its batches; returns the feed's warnings.
    func read(_ feed: FeedInput, index: Int, plan: ImportPlan, ledger: inout ImportLedger) throws -> [String] {
        plan.duplicates.sources.append(feed.name)
        guard let entity = plan.entities.first(where: { $0.name == feed.mapping.entity }) else { return [] }
        let input = try open(feed, entity: entity, index: index, ledger: &ledger)
        let isChild = feed.mapping.childRecords != nil
        var rejected = input.withheld
        var children = ledger.rejectedChildren
        let source = input.source.name
        plan.duplicates.sources[index] = source
        logger.debug("reading feed", metadata: ["source": "\(source)", "format": "\(feed.mapping.format.rawValue)", "mapping": "\(feed.mapping.name)"])
        let writer = try plan.transaction.beginFeed(FeedWriteOptions(
            entity: entity, batchSize: options.batchSize, sortRunBytes: options.sortRunBytes, filtersUnchanged: options.filtersUnchangedBeforeSorting,
            temporaryDirectory: options.temporaryDirectory ?? spoolDirectory, cancellation: cancellation))
        let end = try FeedReadAhead.read(input, batchSize: options.batchSize, onReject: { reject in
            try Self.note(reject, isChild: isChild, rejected: &rejected, children: &children, rejects: plan.rejects)
        }) { batch, position in
            var batch = batch
            (batch.feed, batch.duplicates) = (index, feed.mapping.duplicates)
            if !plan.rejects.scouting { try writing(source) { try writer.add(batch) } }
            if let position = scopePosition(of: feed, entity: entity, in: batch) { ScopeRange.widen(&ledger.scopeRanges[entity.name], over: batch, position: position) }
            try checkCancellation()
            onProgress?(ImportProgress(source: source, records: position.records, bytesRead: position.bytesRead, totalBytes: position.totalBytes))
        }
        ledger.rejectedChildren = children
        let outcome = try writing(source) { try writer.finish() }
        ledger.phases.add(outcome.phases)
        try plan.note(outcome.duplicates)
        logger.info("read feed", metadata: ["source": "\(source)", "records": "\(end.records)", "rejected": "\(plan.rejects.counts[entity.name] ?? 0)"])
        if isChild { ledger.keptParents[entity.name, default: []] += end.keptParents } else { ledger.rejectedRecords = rejected }
        if !isChild { plan.guards.feedRead(source: source, entity: entity.name, records: end.records) }
        onProgress?(ImportProgress(source: source, records: end.records, bytesRead: end.bytesRead, totalBytes: end.totalBytes))
        ledger.absorb(end, entity: entity.name, mapping: feed.mapping.name, source: source)
        return end.warnings
    }

    /// Where a windowed sync's scope attribute is in `feed`'s batches (nil: not a windowed sync).
    private func scopePosition(of feed: FeedInput, entity: EntityDescription, in batch: RecordBatch) -> Int? {
        guard options.sync, feed.mapping.childRecords == nil, let scope = feed.mapping.syncScope,
              let index = entity.attributes.firstIndex(where: { $0.name == scope }) else { return nil }
        return batch.columns.firstIndex(of: index)
    }

    /// Opens `feed` for reading: a feed of records withholding those the attempt before found with a
    /// rejected child; a feed of children leaving out those of its records' rejected ones.
    private func open(_ feed: FeedInput, entity: EntityDescription, index: Int, ledger: inout ImportLedger) throws -> sending MappedFeed {
        let input = try MappedFeed(feed, entity: entity)
        input.requiresFinalLineBreak = options.requireFinalLineBreak
        input.spoolDirectory = options.temporaryDirectory ?? spoolDirectory
        if feed.mapping.childRecords != nil {
            input.rejectedParents = ledger.rejectedRecords
            input.withheldParents = ledger.rejectedChildren.withheldRecords
        } else {
            (ledger.rejectedRecords, ledger.rejectedChildren.recordFeed, ledger.rejectedChildren.recordEntity) = ([], index, entity.name)
            input.withheld = ledger.rejectedChildren.withheldRecords
        }
        return input
    }

    /// Records `reject`: a record's own in `rejected`; a child's, as `RejectedChildren` says (the
    /// attempt turns to scouting when the child's record was written).
    private static func note(_ reject: Reject, isChild: Bool, rejected: inout Set<Int>, children: inout RejectedChildren, rejects: RunRejects) throws {
        guard let record = reject.location.recordIndex else { return try rejects.record(reject) }
        guard isChild else {
            rejected.insert(record)
            return try rejects.record(reject)
        }
        let (again, recordReject) = children.childRejected(reject, record: record)
        if again { rejects.scouting = true }
        try rejects.record(reject)
        if let recordReject { try rejects.record(recordReject) }
    }

    /// `body`'s write of records of `source`: a record the store cannot hold is located in
    /// `source`; a constraint the store holds beyond the model names the feed (`refusedWrite`).
    private func writing<T>(_ source: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch StoreError.unstorable(var location, let reason) {
            location.source = source
            throw StoreError.unstorable(at: location, reason: reason)
        } catch StoreError.refused(var location?, let what, let reason) {
            location.source = source
            throw StoreError.refused(at: location, what: what, reason: reason)
        } catch {
            throw refusedWrite(error, what: "a record of \(source)")
        }
    }

    /// `error`, or, when a constraint the store holds beyond the model's refused a write, that
    /// refusal of `what`: a backend that cannot name the record (PostgreSQL writes a batch, or its
    /// stage, in one statement) names the feed, and the database's message names the values.
    func refusedWrite(_ error: any Error, what: String) -> any Error {
        guard case .database(let database) = store.storeError(from: error), database.kind == .constraint else { return error }
        return StoreError.refused(at: nil, what: what, reason: database.message)
    }

    func checkCancellation() throws(ImportError) {
        if let signal = cancellation?.raised { throw .interrupted(signal: signal) }
    }
}
