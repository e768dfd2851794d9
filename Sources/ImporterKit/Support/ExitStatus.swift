import ImporterFeeds
import ImporterHistory
import ImporterModel
import ImporterPipeline
import ImporterStore
import ImporterSupport

/// The exit codes of `importer`, stable for scripts (sysexits values where one fits).
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success.
    case success = 0
    /// Success, and nothing changed (`run --exit-code`); differences found (`views verify`).
    case noChanges = 1
    /// A consumer's token points into purged history (rebuild the view or reset the consumer).
    case expiredToken = 3
    /// Command-line usage error (EX_USAGE).
    case usage = 64
    /// Bad input: a malformed feed, or more rejected records than allowed (EX_DATAERR).
    case badInput = 65
    /// A feed, the model file or the store does not exist or cannot be read (EX_NOINPUT).
    case noInput = 66
    /// The PostgreSQL server cannot be reached or used: down, login refused, no such database,
    /// TLS failure (EX_UNAVAILABLE).
    case unavailable = 69
    /// Internal failure (EX_SOFTWARE).
    case internalFailure = 70
    /// The model or the store's schema cannot be used: an invalid model file, a store of a newer
    /// importer, a model that changed incompatibly (EX_CONFIG).
    case storeUnusable = 78
    /// The store may not be written by this user: permissions, a read-only file or file system
    /// (EX_NOPERM).
    case permissionDenied = 77
    /// The store is locked by another run, after waiting (EX_TEMPFAIL).
    case locked = 75
    /// An I/O error writing the store or the output (EX_IOERR).
    case ioError = 74
    /// Interrupted by SIGINT (128 + 2); the transaction was rolled back.
    case interrupted = 130
    /// Terminated by SIGTERM (128 + 15); the transaction was rolled back.
    case terminated = 143

    /// The exit status for an error thrown by the library.
    public static func forError(_ error: any Error) -> ExitStatus {
        switch error {
        case let error as ImportError:
            switch error {
            case .feed(let feed): return forError(feed)
            case .tooManyRejects, .refused: return .badInput
            case .interrupted(let signal): return signal == 15 ? .terminated : .interrupted
            case .model(let model): return forError(model)
            case .store(let store): return forError(store)
            }
        case let error as FeedError:
            if case .unreadable = error { return .noInput }
            return .badInput
        case let error as StoreError:
            switch error {
            case .locked: return .locked
            case .notFound: return .noInput
            case .notAnImporterStore, .notADatabase, .unstorable: return .badInput
            case .newerSchema, .incompatibleModel, .unsupported: return .storeUnusable
            case .unavailable: return .unavailable
            case .invalidLocation: return .usage
            case .permissionDenied: return .permissionDenied
            case .io: return .ioError
            case .invalidToken: return .usage
            case .database(let database): return database.isIOFailure ? .ioError : .internalFailure
            }
        case let error as HistoryError:
            switch error {
            case .expiredToken, .expiredPoint: return .expiredToken
            case .unknownConsumer, .consumerExists, .invalidName, .purgeNeedsForce, .nothingToPurge: return .usage
            case .tokenMoved: return .locked
            }
        case let error as ViewError:
            switch error {
            case .unknownView: return .usage
            case .outOfSync: return .internalFailure
            }
        case is RejectStore.UnknownRun: return .noInput
        case let error as UndoError:
            switch error {
            case .laterTransactions, .keyTaken: return .badInput
            case .purged: return .expiredToken
            case .noTransaction: return .usage
            }
        case let error as ModelError:
            switch error {
            case .unreadable: return .noInput
            case .ambiguousMapping, .unknownFeed: return .usage
            default: return .storeUnusable
            }
        case is OutputError: return .ioError
        default: return .internalFailure
        }
    }
}
