import Foundation
import ImporterFeeds
import ImporterFetch
import ImporterKeyOrder
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews
import Logging

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
            var result = try run(try withChildren(inputs), fetched: fetched, filled: filled, warnings: warnings)
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
    var spoolDirectory: String {
        store.directory ?? FileManager.default.temporaryDirectory.path
    }

    /// The feeds with their URL values filled from the store (`URLTemplate`); a sync of such a
    /// feed is refused unless its mapping scopes it (`sync: {scope: …}`: a windowed sync).
    private func fillTemplates(_ feeds: [FeedInput]) throws(ImportError) -> ([FeedInput], [URLTemplate.Filled]) {
        guard feeds.contains(where: { !($0.mapping.source?.values.isEmpty ?? true) && $0.request != nil }) else { return (feeds, []) }
        if options.sync, let feed = feeds.first(where: { !($0.mapping.source?.values.isEmpty ?? true) && $0.mapping.syncScope == nil }) {
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
        var withheld: [Int: Set<Int>] = [:]
        while true {
            if let result = try attempt(feeds, fetched: fetched, filled: filled, warnings: warnings, withholding: &withheld) { return result }
            let records = withheld.values.reduce(0) { $0 + $1.count }
            logger.info("reading the feeds again without the records whose children were rejected", metadata: ["records": "\(records)"])
            rejectSink?.restart()
        }
    }

    /// One attempt at the import in its transaction; nil when it was rolled back to be read again
    /// withholding the records `withheld` then holds (`RejectedChildren`).
    private func attempt(_ feeds: [FeedInput], fetched: [SourceFetch], filled: [URLTemplate.Filled], warnings: [String],
                         withholding withheld: inout [Int: Set<Int>]) throws(ImportError) -> ImportResult? {
        do {
            let clock = ContinuousClock()
            var finished = clock.now
            var committed = false
            let previous = withheld
            var again: [Int: Set<Int>]?
            var result = try store.inTransaction { tx in
                try URLTemplate.check(filled, model: model, in: tx)
                let attempt = try importAll(feeds, fetched: fetched, filled: filled, withholding: previous, in: tx)
                guard case .finished(var result) = attempt else {
                    if case .again(let found) = attempt { again = found }
                    return .rollback(ImportResult(transactionNumber: nil, entities: [], rejects: []))
                }
                result.warnings = warnings + result.warnings
                if result.refusals.isEmpty { try beforeCommit?(result, tx.snapshot) }
                onPhase?(.commit)
                // A dry run or a refused run is rolled back.
                committed = !options.dryRun && result.refusals.isEmpty
                finished = clock.now
                return .commit(result, unless: !committed)
            }
            if let again {
                withheld = again
                return nil
            }
            guard committed else { return result }
            result.phases.add("commit", PhaseTimes.seconds(finished.duration(to: clock.now)))
            logger.info("phase times", metadata: ["seconds": "\(result.phases.description)"])
            return result
        } catch {
            throw importError(error)
        }
    }

    /// `error`, as the import's: an interruption once a signal was raised.
    private func importError(_ error: any Error) -> ImportError {
        if let signal = cancellation?.raised { return .interrupted(signal: signal) }
        switch error {
        case let error as ImportError: return error
        case let error as FeedError: return .feed(error)
        case let error as SpillError: return .spill(directory: error.directory, reason: error.reason)
        case let error as ModelError: return .model(error)
        default: return .store(store.storeError(from: error))
        }
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
}
