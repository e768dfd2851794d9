import Foundation
import ImporterModel
import ImporterSupport

/// Why the store could not do what was asked.
public enum StoreError: Error, Sendable, RemedialError {
    /// Another process holds the write lock and did not release it within the wait; `holder`
    /// names it when it is known (`importer run (pid 4242)`).
    case locked(path: String, waitedMilliseconds: Int, holder: String?)
    /// No store exists at the path (and the command does not create one).
    case notFound(path: String)
    /// The database (an SQLite file, a PostgreSQL database or schema) is not one `importer` created.
    case notAnImporterStore(path: String, backend: DatabaseError.Backend)
    /// The file is not an SQLite database at all.
    case notADatabase(path: String)
    /// The store (or its directory) may not be opened or written by this user, or is on a
    /// read-only file system; `reason` is the system's.
    case permissionDenied(path: String, reason: String)
    /// The store could not be read or written: an I/O error, or the disk is full.
    case io(path: String, reason: String)
    /// The store was written by a newer `importer` whose schema this one does not know.
    case newerSchema(path: String, found: Int, supported: Int)
    /// An import's temporary file in `directory` (`--temp-dir`) could not be made, written or read
    /// back: a full disk there, most often; nothing was written to the store.
    case temporaryFile(directory: String, reason: String)
    /// The model differs from the store's in a way that would lose data.
    case incompatibleModel(entity: String, reason: String)
    /// A token that is not a token, or belongs to another store.
    case invalidToken(String, reason: String)
    /// A database server that cannot be reached or used: down, refusing the login, no such
    /// database, TLS failing. `location` names host and database, never a password.
    case unavailable(location: String, reason: String)
    /// A store location that cannot be right whatever the server does: a malformed PostgreSQL URL,
    /// an unknown `sslmode`, an invalid schema name (a usage error).
    case invalidLocation(location: String, reason: String)
    /// A record holds a value this store cannot hold (PostgreSQL text and the NUL character):
    /// the feed's fault, located (the import fills in the source); nothing is imported.
    case unstorable(at: SourceLocation, reason: String)
    /// A constraint or trigger that the store holds and the model does not declare (one added to
    /// the store by hand: a unique index, a check, a foreign key) refused one of the import's
    /// writes: `what` it refused (a record, located when the backend says which: the import fills
    /// in the source; or a feed's records, or the sync deletes), `reason` the database's words.
    /// The feed's fault as far as the store is concerned; nothing is imported.
    case refused(at: SourceLocation?, what: String, reason: String)
    /// A migration's step (`what`) met stored values it cannot take (`reason` names them): values
    /// that do not convert, nulls in an attribute made required, a new key held by several records.
    case migrationRefused(what: String, reason: String)
    /// An error of the database with no more specific meaning for the store.
    case database(DatabaseError)
    /// Something the store guarantees did not hold, or it was used out of order: a bug.
    case invariant(String)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .locked(let path, let waited, let holder):
            "store \(path) is busy: \(holder ?? "another process") holds its write lock (\(waited == 0 ? words(.didNotWait) : "waited \(Self.seconds(waited)) s; \(words(.waitLonger))"))"
        case .notFound(let path):
            "no store at \(path) (\(words(.createOrNameStore)))"
        case .notAnImporterStore(let path, let backend):
            "\(path) is \(backend == .sqlite ? "an SQLite" : "a PostgreSQL") database that importer did not create; refusing to use it"
        case .notADatabase(let path):
            "\(path) is not an importer store: the file is not an SQLite database"
        case .permissionDenied(let path, let reason):
            "store \(path) cannot be written: \(reason)"
        case .io(let path, let reason):
            "store \(path): I/O error: \(reason)"
        case .temporaryFile(let directory, let reason):
            "cannot keep a temporary file in \(directory): \(reason); nothing was written (free space there, or give \(words(.temporaryDirectory)))"
        case .newerSchema(let path, let found, let supported):
            "store \(path) has schema version \(found), newer than this importer supports (\(supported)); upgrade importer"
        case .incompatibleModel(let entity, let reason):
            "the model does not match the store for entity \(entity): \(reason)"
        case .invalidToken(let token, let reason):
            "invalid token '\(token)': \(reason)"
        case .unavailable(let location, let reason):
            "cannot use the PostgreSQL store \(location): \(reason)"
        case .invalidLocation(let location, let reason):
            "invalid PostgreSQL store \(location): \(reason)"
        case .unstorable(let location, let reason):
            "\(location): \(reason); nothing was imported"
        case .refused(let location, let what, let reason):
            "\(location.map { "\($0): " } ?? "")the store refused \(what): \(reason) (a constraint or trigger of the store that the model does not declare); nothing was imported"
        case .migrationRefused(let what, let reason):
            "\(what): \(reason); nothing was changed"
        case .database(let error):
            error.description
        case .invariant(let reason):
            "importer: internal error: \(reason)"
        }
    }

    private static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}

/// An error the database reported, backend-neutral but with its structure kept (as GRDB's
/// `DatabaseError` keeps its codes and SQL): the backend, its own code (SQLite's extended result
/// code, PostgreSQL's SQLSTATE), the message, the statement, a coarse kind, and the text the
/// backend describes it with (`SQLite error 1: no such table: … (in: SELECT …)`).
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Backend: String, Sendable {
        case sqlite = "SQLite"
        case postgresql = "PostgreSQL"
    }

    /// What kind of failure it is, for callers that react to it, not to a code.
    public enum Kind: String, Sendable {
        /// A read or write failed, or the disk (or the server's) is full.
        case io
        /// The connection to the server failed or was ended.
        case connection
        /// A constraint refused the statement (unique, not null, check).
        case constraint
        /// Another transaction's lock or a serialization conflict stopped it.
        case serialization
        case other
    }

    public var backend: Backend
    /// SQLite's extended result code (decimal) or PostgreSQL's SQLSTATE; nil for a client failure.
    public var code: String?
    public var message: String
    public var sql: String?
    public var kind: Kind
    public var description: String

    public init(backend: Backend, code: String?, message: String, sql: String?, kind: Kind, description: String) {
        self.backend = backend
        self.code = code
        self.message = message
        self.sql = sql
        self.kind = kind
        self.description = description
    }

    /// An I/O failure, a full disk or a lost connection (exit 74), as opposed to an internal
    /// failure (exit 70).
    public var isIOFailure: Bool { kind == .io || kind == .connection }
}

extension StoreError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .locked: .locked
        case .notFound: .noInput
        case .notAnImporterStore, .notADatabase, .unstorable, .refused, .migrationRefused: .badInput
        case .newerSchema, .incompatibleModel: .storeUnusable
        case .unavailable: .unavailable
        case .invalidLocation, .invalidToken: .usage
        case .permissionDenied: .permissionDenied
        case .io, .temporaryFile: .ioError
        case .database(let error): error.exitStatus
        case .invariant: .internalFailure
        }
    }
}

extension DatabaseError: ExitStatusError {
    public var exitStatus: ExitStatus { isIOFailure ? .ioError : .internalFailure }
}
