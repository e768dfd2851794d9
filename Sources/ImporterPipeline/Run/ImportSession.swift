import Foundation
import ImporterFeeds
import ImporterFetch
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews
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
    public var refusals: [Refusal] = []
    /// Where the run's time went (see `PhaseTimes`); `commit` is added once the store committed.
    public var phases = PhaseTimes()
    /// The feeds fetched from URLs, as the store now records them.
    public var fetched: [SourceFetch] = []
    /// Every feed is a URL whose source had not changed since its last import: nothing was read.
    public var notModified = false
    /// Per feed and attribute, the records that left out a field the feed supplies (stored as null).
    public var absences: [MappedFeed.FieldAbsence] = []

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
    /// Called as each step after reading begins (on the importing thread).
    public var onPhase: ((ImportPhase) -> Void)?
    /// Where the run logs what it does (nothing by default).
    public var logger = Logger(label: "importer") { _ in SwiftLogNoOpLogHandler() }
    /// Receives every rejected record as it is met (the `--rejects` file).
    public var rejectSink: RejectSink?
    /// Polled between batches: once raised, the import stops and rolls back
    /// (`ImportError.interrupted`).
    public var cancellation: CancellationFlag?
    /// Called inside the store transaction, after the import and the views, with the result and
    /// the transaction's snapshot; the report is rendered here for a dry run, whose transaction is
    /// then rolled back.
    public var beforeCommit: ((ImportResult, StoreSnapshot) throws -> Void)?
    /// The absences the feeds of the run being imported showed (`MappedFeed.absences`).
    private var absences: [MappedFeed.FieldAbsence] = []

    public init(store: Store, model: Model, options: ImportOptions) {
        self.store = store
        self.model = model
        self.options = options
    }

    public func run(_ feeds: [FeedInput]) throws(ImportError) -> ImportResult {
        let (feeds, filled) = try fillTemplates(feeds)
        switch try SourceFetching(store: store, refetch: options.refetch, spoolDirectory: spoolDirectory).prepare(feeds) {
        case .notModified(let fetches, let refreshed):
            try refreshValidators(refreshed)
            var result = ImportResult(transactionNumber: nil, entities: [], rejects: [])
            result.fetched = fetches
            result.notModified = true
            return result
        case .feeds(let inputs, let fetched, var warnings):
            defer { SourceFetching.removeBodies(of: inputs) }
            warnings += try UnframedBodies.check(inputs, options: options)
            for warning in warnings { logger.warning("\(warning)") }
            var result = try run(inputs, fetched: fetched, filled: filled, warnings: warnings)
            result.fetched = fetched
            return result
        }
    }

    /// Stores the new validators of sources whose answer was the last import's body again under a
    /// new `ETag` or `Last-Modified`, so that the next run's conditional request can get its 304.
    /// No history: nothing the store holds changed.
    private func refreshValidators(_ states: [SourceState]) throws(ImportError) {
        guard !states.isEmpty, !options.dryRun else { return }
        do {
            try store.inTransaction { tx in
                for state in states { try tx.sources.recordSourceState(state) }
                return .commit(())
            }
        } catch {
            throw .store(store.storeError(from: error))
        }
    }

    /// Where downloaded bodies are kept while the run reads them: beside a store file, else the
    /// temporary directory.
    private var spoolDirectory: String {
        store.directory ?? FileManager.default.temporaryDirectory.path
    }

    /// The feeds with their URL values filled from the store (`URLTemplate`); a sync of such a
    /// feed is refused.
    private func fillTemplates(_ feeds: [FeedInput]) throws(ImportError) -> ([FeedInput], [URLTemplate.Filled]) {
        guard feeds.contains(where: { !($0.mapping.source?.values.isEmpty ?? true) && $0.request != nil }) else { return (feeds, []) }
        if options.sync, let feed = feeds.first(where: { !($0.mapping.source?.values.isEmpty ?? true) }) {
            throw .syncOfIncrementalSource(feed: feed.mapping.name)
        }
        do {
            return try store.read { (snapshot: StoreSnapshot) throws -> ([FeedInput], [URLTemplate.Filled]) in
                try URLTemplate.fill(feeds, model: model, from: snapshot)
            }
        } catch let error as ImportError {
            throw error
        } catch {
            throw .store(store.storeError(from: error))
        }
    }

    private func run(_ feeds: [FeedInput], fetched: [SourceFetch], filled: [URLTemplate.Filled], warnings: [String]) throws(ImportError) -> ImportResult {
        absences = []
        do {
            let clock = ContinuousClock()
            var finished = clock.now
            var committed = false
            var result = try store.inTransaction { tx in
                try URLTemplate.check(filled, model: model, in: tx)
                var result = try importAll(feeds, fetched: fetched, in: tx)
                result.warnings = warnings + result.warnings
                if result.refusals.isEmpty { try beforeCommit?(result, tx.snapshot) }
                onPhase?(.commit)
                // A dry run or a refused run is rolled back.
                committed = !options.dryRun && result.refusals.isEmpty
                finished = clock.now
                return .commit(result, unless: !committed)
            }
            guard committed else { return result }
            result.phases.add("commit", PhaseTimes.seconds(finished.duration(to: clock.now)))
            logger.info("phase times", metadata: ["seconds": "\(result.phases.description)"])
            return result
        } catch {
            if let signal = cancellation?.raised { throw .interrupted(signal: signal) }
            switch error {
            case let error as ImportError: throw error
            case let error as FeedError: throw .feed(error)
            case let error as ModelError: throw .model(error)
            default: throw .store(store.storeError(from: error))
            }
        }
    }

    private func importAll(_ feeds: [FeedInput], fetched: [SourceFetch], in tx: StoreWriteTransaction) throws -> ImportResult {
        var entityNames: [String] = []
        for feed in feeds where !entityNames.contains(feed.mapping.entity) { entityNames.append(feed.mapping.entity) }
        let entities = try entityNames.map { name throws(ModelError) -> EntityDescription in
            guard let entity = model.entity(named: name) else { throw ModelError.invalid("feed mapping names unknown entity '\(name)'") }
            return entity
        }
        try store.ensureEntities(entities)
        let created = options.replayViews ? try ViewRegistry().ensure(model.views, entities: store.entities, in: tx) : []
        let transaction = try tx.records.beginImport(entities)
        transaction.useTemporaryDirectory(options.temporaryDirectory ?? spoolDirectory)
        let guards = try SyncGuards(options: options, entities: entities, recordCount: tx.records.recordCount(of:))
        let rejects = RunRejects(limit: options.maxRejects, sink: rejectSink, transaction: transaction)
        var feedWarnings: [String] = []
        func warn(_ warnings: [String]) {
            for warning in warnings { logger.warning("\(warning)") }
            feedWarnings += warnings
        }
        let duplicates = DuplicateNotes(keyNames: Dictionary(entities.map { ($0.name, $0.uniqueKey) }) { first, _ in first })
        var phases = PhaseTimes()
        for phase in ["read", "read wait"] { phases.add(phase, 0) }
        transaction.onDuplicate = { duplicate in
            guard duplicate.resolution == .rejected else { return duplicates.note(duplicate) }
            try rejects.record(duplicates.reject(duplicate))
        }
        // The handler refers to the transaction: let go of it however the import ends.
        defer { transaction.onDuplicate = nil }
        let clock = ContinuousClock()
        let readingBegan = clock.now
        for (index, feed) in feeds.enumerated() {
            warn(try read(feed, index: index, of: entities, into: transaction, rejects: rejects, duplicates: duplicates, guards: guards, phases: &phases))
        }

        phases.add("read wait", PhaseTimes.seconds(readingBegan.duration(to: clock.now)) - (phases["upsert"] ?? 0) - (phases["sort"] ?? 0))
        for entity in entities {
            do {
                try phases.time("upsert") { try transaction.applyUpserts(entity) }
            } catch {
                throw refusedWrite(error, what: "a record of \(Self.sources(of: feeds.filter { $0.mapping.entity == entity.name }).joined(separator: ", "))")
            }
        }
        try checkCancellation()
        if options.sync || entities.contains(where: { $0.drift?.on == .always }) { onPhase?(.sync) }
        for entity in entities {
            // Key drift is reconciled before sync deletes are decided (or in every run, when the
            // rule says so).
            if let drift = entity.drift, options.sync || drift.on == .always { _ = try phases.time("drift") { try transaction.reconcileDrift(entity) } }
            if options.sync {
                do {
                    _ = try phases.time("sync deletes") { try transaction.deleteRecordsNotWritten(entity) }
                } catch {
                    throw refusedWrite(error, what: "the sync deletes of \(entity.name) (records no feed holds)")
                }
            }
        }
        onPhase?(.history)
        var counts = try closeEntities(entities, of: transaction, phases: &phases)
        for index in counts.indices { counts[index].1.rejected = rejects.counts[counts[index].0] ?? 0 }
        warn(duplicates.warnings)
        let refusals = guards.refusals(deleted: counts.map { ($0.0, $0.1.deleted) }) + (try storms(entities, counts: counts, of: transaction, in: tx))
        guard refusals.isEmpty else {
            var result = ImportResult(transactionNumber: nil, entities: counts, rejects: rejects.first)
            result.refusals = refusals
            result.warnings = feedWarnings
            return result
        }
        let metadata = TransactionMetadata(author: options.author, context: options.context, sources: Self.sources(of: feeds))
        let wrote = try phases.time("history") { try transaction.finish(metadata: metadata, counts: counts) }
        try recordSources(fetched, transaction: wrote ? transaction.number : nil, in: tx)
        var result = ImportResult(transactionNumber: wrote ? transaction.number : nil, entities: counts, rejects: rejects.first)
        (result.warnings, result.absences) = (feedWarnings, absences)
        result.rejectRun = transaction.rejectRun
        if options.replayViews { try phases.time("views") { try replayViews(into: &result, created: created, in: tx) } }
        result.phases = phases
        return result
    }

    /// Reads feed `index` of the run and upserts its batches; returns the feed's warnings.
    private func read(_ feed: FeedInput, index: Int, of entities: [EntityDescription], into transaction: any ImportTransaction,
                      rejects: RunRejects, duplicates: DuplicateNotes, guards: SyncGuards, phases: inout PhaseTimes) throws -> [String] {
        duplicates.sources.append(feed.name)
        guard let entity = entities.first(where: { $0.name == feed.mapping.entity }) else { return [] }
        let input = try MappedFeed(feed, entity: entity)
        input.requiresFinalLineBreak = options.requireFinalLineBreak
        let source = input.source.name
        duplicates.sources[index] = source
        logger.debug("reading feed", metadata: ["source": "\(source)", "format": "\(feed.mapping.format.rawValue)", "mapping": "\(feed.mapping.name)"])
        func progress(_ position: FeedReadAhead.Position) -> ImportProgress {
            ImportProgress(source: source, records: position.records, bytesRead: position.bytesRead, totalBytes: position.totalBytes)
        }
        let ordered = transaction.prefersKeyOrder
            ? KeyOrderedBatches(directory: options.temporaryDirectory ?? spoolDirectory, runBytes: options.sortRunBytes, batchSize: options.batchSize)
            : nil
        func upsert(_ batch: RecordBatch) throws {
            do {
                try phases.time("upsert") { try Self.upsert(batch, of: entity, columns: batch.columns, into: transaction, from: source) }
            } catch {
                throw refusedWrite(error, what: "a record of \(source)")
            }
            try checkCancellation()
        }
        // Made when the first batch is held, let go of once the feed is read (megabytes).
        var unchanged: (filter: (any UnchangedRecordFilter)?, made: Bool) = (nil, false)
        func dropUnchanged(_ batch: RecordBatch) throws -> RecordBatch {
            try phases.time("upsert") {
                if !unchanged.made {
                    let filter = options.filtersUnchangedBeforeSorting ? try transaction.unchangedRecordFilter(for: entity, columns: batch.columns) : nil
                    unchanged = (filter, true)
                }
                return unchanged.filter?.dropping(batch) ?? batch
            }
        }
        let end = try FeedReadAhead.read(input, batchSize: options.batchSize, onReject: rejects.record) { batch, position in
            var batch = batch
            batch.feed = index
            batch.duplicates = feed.mapping.duplicates
            if let ordered { try ordered.add(batch, dropUnchanged: dropUnchanged, upsert: upsert) } else { try upsert(batch) }
            onProgress?(progress(position))
        }
        // The records a filter kept are mostly changed: noting the unchanged ones would cost a
        // scan of the table for few.
        let filtered = unchanged.filter != nil
        unchanged.filter = nil
        if let ordered {
            try ordered.finish(matcher: { [logger] columns in
                guard !filtered else { return nil }
                let matcher = try phases.time("upsert") { try transaction.unchangedRowMatcher(for: entity, columns: columns) }
                logger.debug("merging sorted runs", metadata: ["source": "\(source)", "unchanged noted while merging": "\(matcher != nil)"])
                return matcher
            }, upsert: upsert)
            if ordered.sortingSeconds > 0 { phases.add("sort", ordered.sortingSeconds) }
        }
        logger.info("read feed", metadata: ["source": "\(source)", "records": "\(end.records)", "rejected": "\(rejects.counts[entity.name] ?? 0)"])
        guards.feedRead(source: source, entity: entity.name, records: end.records)
        phases.add("read", end.readingSeconds)
        onProgress?(progress(end))
        absences += input.absences
        return input.warnings
    }

    /// `error`, or, when a constraint the store holds beyond the model's refused a write, that
    /// refusal of `what`: a backend that cannot name the record (PostgreSQL writes a batch, or its
    /// stage, in one statement) names the feed, and the database's message names the values.
    private func refusedWrite(_ error: any Error, what: String) -> any Error {
        guard case .database(let database) = store.storeError(from: error), database.kind == .constraint else { return error }
        return StoreError.refused(at: nil, what: what, reason: database.message)
    }

    /// Records each entity's changes and returns its counts (rejects not yet included).
    private func closeEntities(_ entities: [EntityDescription], of transaction: any ImportTransaction,
                               phases: inout PhaseTimes) throws -> [(String, ChangeCounts)] {
        try entities.map { entity in
            (entity.name, try phases.time("history") { try transaction.closeEntity(entity) })
        }
    }

    /// Records what the store keeps of each fetched feed, in the import's transaction.
    private func recordSources(_ fetched: [SourceFetch], transaction: Int64?, in tx: StoreWriteTransaction) throws {
        let now = Timestamp.now()
        for fetch in fetched {
            try tx.sources.recordSourceState(SourceState(
                url: fetch.url, etag: fetch.validators.etag, lastModified: fetch.validators.lastModified, sha256: fetch.validators.sha256,
                bytes: fetch.bytes, status: fetch.status, fetchedAt: now, transactionNumber: transaction))
        }
    }

    private func checkCancellation() throws(ImportError) {
        if let signal = cancellation?.raised { throw .interrupted(signal: signal) }
    }

    /// Builds the views this run created and replays the others through the new head; a view whose
    /// token expired is skipped with a warning (rebuilding it is the user's call). In the import's
    /// transaction `tx`.
    private func replayViews(into result: inout ImportResult, created: [ViewDefinition], in tx: StoreWriteTransaction) throws {
        onPhase?(.views)
        let maintainer = ViewMaintainer(entities: store.entities)
        let views = try ViewRegistry().all(in: tx.snapshot)
        var warnings: [String] = []
        let replayed = try maintainer.replay(views.filter { view in !created.contains { $0.name == view.name } }, in: tx) { [logger] error in
            warnings.append("\(error)")
            logger.warning("\(error)")
        }
        let effects = replayed + (try maintainer.rebuild(created, in: tx))
        result.views = views.compactMap { view in effects.first { $0.view == view.name } }
        result.warnings += warnings
    }
}

extension ImportSession {
    /// What a run read from, each once, in order: the feeds' files and URLs (a paged source by its
    /// first page).
    static func sources(of feeds: [FeedInput]) -> [String] {
        var names: [String] = []
        for feed in feeds where !names.contains(feed.sourceName) { names.append(feed.sourceName) }
        return names
    }

    /// Upserts `batch`; a record the store cannot hold is located in `source`.
    static func upsert(_ batch: RecordBatch, of entity: EntityDescription, columns: [Int], into transaction: any ImportTransaction,
                       from source: String) throws {
        do {
            try transaction.upsert(batch, of: entity, columns: columns)
        } catch StoreError.unstorable(var location, let reason) {
            location.source = source
            throw StoreError.unstorable(at: location, reason: reason)
        } catch StoreError.refused(var location?, let what, let reason) {
            location.source = source
            throw StoreError.refused(at: location, what: what, reason: reason)
        }
    }
}
