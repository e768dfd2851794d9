import Foundation
import Logging

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
    public var refusals: [String] = []

    public var totals: ChangeCounts { entities.reduce(ChangeCounts()) { $0 + $1.1 } }
}

/// Runs one import: reads every feed, maps its records, upserts them in batches, records the
/// history and replays the derived views, all in one store transaction. Either everything commits
/// or nothing does.
public final class ImportSession {
    public let store: Store
    public let model: Model
    public let options: ImportOptions
    /// Called after each batch (on the importing thread).
    public var onProgress: ((ImportProgress) -> Void)?
    /// Where the run logs what it does (nothing by default).
    public var logger = Logger(label: "importer") { _ in SwiftLogNoOpLogHandler() }
    /// Receives every rejected record as it is met (the `--rejects` file).
    public var rejectSink: RejectSink?
    /// Polled between batches: once raised, the import stops and rolls back
    /// (`ImportError.interrupted`).
    public var cancellation: CancellationFlag?
    /// Called inside the store transaction, after the import and the views, with the result;
    /// the report is rendered here for a dry run, whose transaction is then rolled back.
    public var beforeCommit: ((ImportResult) throws -> Void)?

    public init(store: Store, model: Model, options: ImportOptions) {
        self.store = store
        self.model = model
        self.options = options
    }

    /// Thrown inside the transaction to roll a dry run or a refused run back.
    private struct DryRunRollback: Error {
        var result: ImportResult
    }

    public func run(_ feeds: [FeedInput]) throws(ImportError) -> ImportResult {
        do {
            return try store.write {
                let result = try importAll(feeds)
                if result.refusals.isEmpty { try beforeCommit?(result) }
                if options.dryRun || !result.refusals.isEmpty { throw DryRunRollback(result: result) }
                return result
            }
        } catch let rollback as DryRunRollback {
            store.capture.reset()
            try? store.reloadEntities()
            return rollback.result
        } catch {
            // The SQLite transaction rolled back: forget what this run left in memory.
            store.capture.reset()
            try? store.reloadEntities()
            if let signal = cancellation?.raised { throw .interrupted(signal: signal) }
            switch error {
            case let error as ImportError: throw error
            case let error as FeedError: throw .feed(error)
            case let error as ModelError: throw .model(error)
            default: throw .store(store.storeError(from: error))
            }
        }
    }

    /// The run's state for one entity.
    private final class EntityRun {
        let entity: EntityDescription
        /// The keys written so far, shared by all the entity's feeds.
        let seen: SeenKeys
        let merger: DuplicateMerger
        /// One upserter per set of supplied columns (feeds of one entity may supply different ones).
        var upserters: [[Int]: BatchUpserter] = [:]
        var rejected = 0

        init(entity: EntityDescription, connection: Connection, transaction: OpenTransaction) throws {
            self.entity = entity
            seen = try SeenKeys(connection: connection, entity: entity)
            merger = try DuplicateMerger(connection: connection, entity: entity, transaction: transaction)
        }
    }

    private func importAll(_ feeds: [FeedInput]) throws -> ImportResult {
        var entityNames: [String] = []
        for feed in feeds where !entityNames.contains(feed.mapping.entity) { entityNames.append(feed.mapping.entity) }
        let entities = try entityNames.map { name throws(ModelError) -> EntityDescription in
            guard let entity = model.entity(named: name) else { throw ModelError.invalid("feed mapping names unknown entity '\(name)'") }
            return entity
        }
        try store.ensureEntities(entities)
        let created = options.replayViews ? try ViewRegistry(store: store).ensure(model.views) : []
        let history = HistoryWriter(store: store)
        let transaction = try history.begin(entities)
        let number = transaction.number
        defer { store.transactionState.number = nil }
        var runs: [String: EntityRun] = [:]
        let guards = try SyncGuards(options: options, entities: entities, connection: store.connection)
        for entity in entities {
            runs[entity.name] = try EntityRun(entity: entity, connection: store.connection, transaction: transaction)
        }
        var rejects: [Reject] = []
        var rejectCount = 0
        let rejectStore = RejectStore(store: store)
        var rejectRun: Int64?
        var insertReject: Statement?
        let startedAt = Timestamp.now()

        for feed in feeds {
            guard let run = runs[feed.mapping.entity] else { continue }
            let entity = run.entity
            let input = try MappedFeed(feed, entity: entity)
            let source = input.source.name
            logger.debug("reading feed", metadata: ["source": "\(source)", "format": "\(feed.mapping.format.rawValue)", "mapping": "\(feed.mapping.name)"])
            let columns = input.mapper.columns
            var upserter: BatchUpserter?
            func progress() -> ImportProgress {
                ImportProgress(source: source, records: input.records, bytesRead: input.progress.read, totalBytes: input.progress.total)
            }
            try input.read(batchSize: options.batchSize) { reject in
                rejectCount += 1
                run.rejected += 1
                if rejects.count < 100 { rejects.append(reject) }
                rejectSink?.write(reject)
                if rejectCount > options.maxRejects {
                    throw ImportError.tooManyRejects(count: rejectCount, limit: options.maxRejects, rejects: rejects)
                }
                if rejectRun == nil {
                    rejectRun = try rejectStore.allocateRun()
                    insertReject = try rejectStore.insertStatement()
                }
                if let rejectRun, let insertReject { try rejectStore.insert(reject, run: rejectRun, using: insertReject, at: startedAt) }
            } onBatch: { batch in
                // Created at the first batch: a feed with no records (and maybe no fields) writes nothing.
                if upserter == nil {
                    upserter = try run.upserters[columns] ?? BatchUpserter(
                        connection: store.connection, capture: store.capture, entity: entity, columns: columns, seen: run.seen, duplicates: run.merger)
                    run.upserters[columns] = upserter
                }
                try upserter?.write(batch, sorted: options.sortBatches)
                try checkCancellation()
                onProgress?(progress())
            }
            logger.info("read feed", metadata: ["source": "\(source)", "records": "\(input.records)", "rejected": "\(run.rejected)"])
            guards.feedRead(source: source, entity: entity.name, records: input.records)
            onProgress?(progress())
        }

        try checkCancellation()
        if options.sync {
            for entity in entities { _ = try history.deleteRecords(entity, where: SeenKeys.unseenCondition(entity), in: transaction) }
        }
        var counts: [(String, ChangeCounts, ClosedRange<Int64>?)] = []
        for entity in entities {
            var (entityCounts, changeIDs) = try history.recordChanges(entity, in: transaction)
            guard let run = runs[entity.name] else { continue }
            let seen = try SeenKeys.count(entity, in: store.connection)
            entityCounts.unchanged = seen - entityCounts.inserted - entityCounts.updated
            entityCounts.rejected = run.rejected
            entityCounts.duplicates = run.seen.duplicates
            counts.append((entity.name, entityCounts, changeIDs))
        }
        let refusals = guards.refusals(deleted: counts.map { ($0.0, $0.1.deleted) })
        guard refusals.isEmpty else {
            var result = ImportResult(transactionNumber: nil, entities: counts.map { ($0.0, $0.1) }, rejects: rejects)
            result.refusals = refusals
            return result
        }
        let metadata = TransactionMetadata(author: options.author, context: options.context, sources: feeds.map(\.path))
        let wrote = try history.finish(number, metadata: metadata, entities: counts)
        var result = ImportResult(transactionNumber: wrote ? number : nil, entities: counts.map { ($0.0, $0.1) }, rejects: rejects)
        result.rejectRun = rejectRun
        if let rejectRun, wrote { try rejectStore.tag(run: rejectRun, transaction: number) }
        if options.replayViews { try replayViews(into: &result, created: created) }
        return result
    }

    private func checkCancellation() throws(ImportError) {
        if let signal = cancellation?.raised { throw .interrupted(signal: signal) }
    }

    /// Builds the views this run created and replays the others through the new head; a view whose
    /// token expired is skipped with a warning (rebuilding it is the user's call).
    private func replayViews(into result: inout ImportResult, created: [ViewDefinition]) throws {
        let maintainer = ViewMaintainer(store: store)
        let views = try ViewRegistry(store: store).all()
        var warnings: [String] = []
        let replayed = try maintainer.replay(views.filter { view in !created.contains { $0.name == view.name } }) { [logger] error in
            warnings.append("\(error)")
            logger.warning("\(error)")
        }
        let effects = replayed + (try maintainer.rebuild(created))
        result.views = views.compactMap { view in effects.first { $0.view == view.name } }
        result.warnings += warnings
    }
}
