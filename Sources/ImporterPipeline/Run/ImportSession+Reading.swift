import ImporterModel
import ImporterStore

/// Reading one feed of an import: its records mapped, their batches upserted as the store prefers.
extension ImportSession {
    /// Reads feed `index` of the run and upserts its batches; returns the feed's warnings.
    func read(_ feed: FeedInput, index: Int, plan: ImportPlan, ledger: inout ImportLedger) throws -> [String] {
        plan.duplicates.sources.append(feed.name)
        guard let entity = plan.entities.first(where: { $0.name == feed.mapping.entity }) else { return [] }
        let input = try MappedFeed(feed, entity: entity)
        input.requiresFinalLineBreak = options.requireFinalLineBreak
        let source = input.source.name
        plan.duplicates.sources[index] = source
        logger.debug("reading feed", metadata: ["source": "\(source)", "format": "\(feed.mapping.format.rawValue)", "mapping": "\(feed.mapping.name)"])
        let upserts = FeedUpserts(entity: entity, source: source, transaction: plan.transaction, options: options,
                                  directory: options.temporaryDirectory ?? spoolDirectory, logger: logger,
                                  refused: { [unowned self] error, what in refusedWrite(error, what: what) },
                                  checkCancellation: { [unowned self] in try checkCancellation() })
        let end = try FeedReadAhead.read(input, batchSize: options.batchSize, onReject: plan.rejects.record) { batch, position in
            var batch = batch
            (batch.feed, batch.duplicates) = (index, feed.mapping.duplicates)
            try upserts.add(batch)
            onProgress?(ImportProgress(source: source, records: position.records, bytesRead: position.bytesRead, totalBytes: position.totalBytes))
        }
        try upserts.finish()
        ledger.phases.add(upserts.phases)
        logger.info("read feed", metadata: ["source": "\(source)", "records": "\(end.records)", "rejected": "\(plan.rejects.counts[entity.name] ?? 0)"])
        plan.guards.feedRead(source: source, entity: entity.name, records: end.records)
        ledger.phases.add("read", end.readingSeconds)
        onProgress?(ImportProgress(source: source, records: end.records, bytesRead: end.bytesRead, totalBytes: end.totalBytes))
        ledger.absences += end.absences
        return end.warnings
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
