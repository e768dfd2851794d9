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
    /// importer, a model that changed incompatibly, a secret a source needs is missing (EX_CONFIG).
    case storeUnusable = 78
    /// The store may not be written by this user: permissions, a read-only file or file system
    /// (EX_NOPERM).
    case permissionDenied = 77
    /// Try again later (EX_TEMPFAIL): the store is locked by another run, after waiting, or a feed's
    /// source kept failing temporarily until the deadline.
    case locked = 75
    /// An I/O error writing the store or the output (EX_IOERR).
    case ioError = 74
    /// Interrupted by SIGINT (128 + 2); the transaction was rolled back.
    case interrupted = 130
    /// Terminated by SIGTERM (128 + 15); the transaction was rolled back.
    case terminated = 143

    /// The exit status for an error thrown by the library: the error's own
    /// (`ExitStatusError`), else 70 (an error nobody declared a status for is a bug).
    public static func forError(_ error: any Error) -> ExitStatus {
        (error as? any ExitStatusError)?.exitStatus ?? .internalFailure
    }
}

/// An error that states the exit status a command failing with it ends with, as hummingbird's
/// `HTTPResponseError` states its HTTP status. Each error type conforms beside its declaration
/// with an exhaustive switch, so a new case cannot be added without choosing its status.
public protocol ExitStatusError: Error {
    var exitStatus: ExitStatus { get }
}
