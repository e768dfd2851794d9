import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport
import Logging

/// One `importer run`, from feeds to reports: the import session with its reject file, a dry run's
/// temporary store, and the reports written at the moment the run's outcome allows (a dry run's
/// inside its transaction before the rollback, a refused run's before it fails, a real run's once
/// committed).
public final class ImportRun {
    public let model: Model
    public let inputs: [FeedInput]
    public let options: ImportOptions
    /// Where rejected records are also written as NDJSON (`RejectSink`), or nil.
    public let rejectsPath: String?
    /// Whether the store to write exists: a dry run on one that does not works on a temporary
    /// SQLite store, removed when the run ends.
    public let storeExists: Bool

    public var cancellation: CancellationFlag?
    public var logger = Logger(label: "importer") { _ in SwiftLogNoOpLogHandler() }
    public var onProgress: ((ImportProgress) -> Void)?
    public var onPhase: ((ImportPhase) -> Void)?
    /// Called once the feeds are read and the import is done or failed, before any report is written.
    public var onImported: (() -> Void)?

    public init(model: Model, inputs: [FeedInput], options: ImportOptions, rejectsPath: String? = nil, storeExists: Bool = true) {
        self.model = model
        self.inputs = inputs
        self.options = options
        self.rejectsPath = rejectsPath
        self.storeExists = storeExists
    }

    /// Writes a run's reports from the store, as the snapshot it is handed sees it (the run's
    /// transaction for a dry run, a read transaction after it otherwise).
    public typealias Reporter = (ImportResult, Store, StoreSnapshot) throws -> Void

    /// Runs the import on the store `open` returns (given a temporary path for a dry run on a store
    /// that does not exist, nil for the store itself) and hands the result to the reporter
    /// `reporter` makes, once the store and the reject file are open and before anything is
    /// imported. A run a sync guard refused is reported, then fails with `ImportError.refused`.
    public func run(open: (_ temporaryPath: String?) throws -> Store, reporter: () throws -> Reporter) throws -> ImportResult {
        let temporary = options.dryRun && !storeExists ? Self.temporaryPath() : nil
        defer { if let temporary { Self.remove(temporary) } }
        let store = try open(temporary)
        let session = ImportSession(store: store, model: model, options: options)
        session.cancellation = cancellation
        session.logger = logger
        session.onProgress = onProgress
        session.onPhase = onPhase
        let sink = try RejectSink(path: rejectsPath)
        session.rejectSink = sink
        let report = try reporter()
        if options.dryRun {
            session.beforeCommit = { [onImported] result, snapshot in
                onImported?()
                try report(result, store, snapshot)
            }
        }
        let result: ImportResult
        do {
            result = try session.run(inputs)
        } catch {
            onImported?()
            try? sink.finish()
            discardIfUnwritten(store)
            throw error
        }
        onImported?()
        do {
            try sink.finish()
            try finish(result, store: store, report: report)
        } catch {
            discardIfUnwritten(store)
            throw error
        }
        return result
    }

    /// A first run that failed or was refused leaves no store behind: the SQLite store it created
    /// is removed when it holds no transaction, under its write lock (a process that opened it
    /// meanwhile finds, once it holds the lock, that its file is gone, and exits busy).
    private func discardIfUnwritten(_ store: Store) {
        let path = store.path
        // A PostgreSQL store's path is a URL, never a file here.
        guard !storeExists, !options.dryRun, FileManager.default.fileExists(atPath: path) else { return }
        try? store.inTransaction { _ in
            if try store.lastTransactionNumber() == 0 { Self.remove(path) }
            return .rollback(())
        }
    }

    /// A run's end once the import returned: a refusal reported and thrown, a commit logged, a real
    /// run's reports written.
    private func finish(_ result: ImportResult, store: Store, report: Reporter) throws {
        if !result.refusals.isEmpty {
            try store.read { (snapshot: StoreSnapshot) throws in try report(result, store, snapshot) }
            throw ImportError.refused(result.refusals)
        }
        guard !options.dryRun else { return }
        if let number = result.transactionNumber {
            logger.info("committed", metadata: ["transaction": "\(number)", "token": "\(store.token(number))"])
        }
        let clock = ContinuousClock()
        let began = clock.now
        try store.read { (snapshot: StoreSnapshot) throws in try report(result, store, snapshot) }
        logger.info("reports written", metadata: ["seconds": "\(String(format: "%.3f", PhaseTimes.seconds(began.duration(to: clock.now))))"])
    }

    private static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("importer-dry-run-\(UUID().uuidString).sqlite").path
    }

    /// Removes an SQLite store and its companion files.
    private static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-writer"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
