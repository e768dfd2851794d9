import Foundation
import ImporterModel

/// One importer store, as every stage above the store sees it: a handle on a backend (SQLite
/// today) that speaks the model's language. Transactions go through `write { }` (the writer lock,
/// taken up front) and `read { }` (one consistent snapshot); stages never see SQL.
///
/// A `Store` is used by one task at a time. The store id (a UUID fixed at creation) binds tokens
/// to this store.
public final class Store {
    public struct Options: Sendable {
        /// How long to wait for another process's lock before failing with `StoreError.locked`.
        public var busyTimeoutMilliseconds: Int = 5000
        /// Create the store when the file does not exist.
        public var create = true
        public var readOnly = false
        /// The command this process runs (`importer run`), named to others while it holds the
        /// write lock.
        public var command = Options.commandOfThisProcess()

        public init(busyTimeoutMilliseconds: Int = 5000, create: Bool = true, readOnly: Bool = false) {
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.create = create
            self.readOnly = readOnly
        }

        /// `importer` and its subcommand words (the arguments before the first option).
        static func commandOfThisProcess() -> String {
            let arguments = CommandLine.arguments
            let name = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "importer"
            let words = arguments.dropFirst().prefix { !$0.hasPrefix("-") && !$0.contains("/") && !$0.contains(".") }.prefix(2)
            return ([name] + words).joined(separator: " ")
        }
    }

    /// The backend that holds the data. Not public: the stages reach it only through `read` and
    /// `write` and the roles of their snapshot and transaction.
    package let backend: any StoreBackend

    /// The path used when no `--store` is given: `$IMPORTER_STORE`, else `importer.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["IMPORTER_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? "importer.sqlite"
    }

    /// A store over `backend` (see `Store(path:options:)` for SQLite).
    public init(backend: any StoreBackend) {
        self.backend = backend
    }

    public var path: String { backend.path }
    public var options: Options { backend.options }
    public var storeID: UUID { backend.storeID }
    /// The entities the store holds, as registered (the store's own model of itself).
    public var entities: [EntityDescription] { backend.entities }
    /// The directory holding the store's files (see `StoreIdentity.directory`); nil for a store on
    /// a server.
    public var directory: String? { backend.directory }

    /// Runs `body` in a write transaction, handing it the transaction (`StoreWriteTransaction`):
    /// takes the store's write lock up front (waiting up to the busy timeout, then
    /// `StoreError.locked` naming the holder), commits when `body` returns and rolls back when it
    /// throws. Every write to the store goes through here.
    public func write<T>(_ body: (StoreWriteTransaction) throws -> T) throws -> T {
        try backend.write { .commit(try body(StoreWriteTransaction(backend))) }
    }

    /// `write`, ending as `body` says: `.rollback(result)` undoes everything the body did (and
    /// what it left in memory: captured changes, migrated entities) and still returns its result.
    public func inTransaction<T>(_ body: (StoreWriteTransaction) throws -> TransactionCompletion<T>) throws -> T {
        try backend.write { try body(StoreWriteTransaction(backend)) }
    }

    /// Runs `body` in a read transaction, handing it the store's readers (`StoreSnapshot`): one
    /// consistent snapshot, never blocked by a writer.
    public func read<T>(_ body: (StoreSnapshot) throws -> T) throws -> T {
        try backend.read { try body(StoreSnapshot(backend)) }
    }

    /// The per-consumer locks that keep deliveries of one consumer from overlapping. Not a role of
    /// the transaction handles: a lock is held across transactions, apart from the writer lock.
    public var consumerLocks: any ConsumerLocking { backend }

    /// A value that changes whenever another process commits to the store (watch polls it).
    public func commitMarker() throws(StoreError) -> Int64 { try backend.commitMarker() }

    /// Interrupts the work running on the store (from any thread): it fails, and the transaction
    /// around it rolls back.
    public func interrupt() { backend.interrupt() }

    /// Re-reads the registered entities (after another process may have changed them).
    public func reloadEntities() throws(StoreError) { try backend.reloadEntities() }

    public func entity(named name: String) -> EntityDescription? { backend.entity(named: name) }

    /// Makes the store hold `entities` (creating or migrating their tables), inside a write
    /// transaction so that a failed import also undoes it.
    package func ensureEntities(_ entities: [EntityDescription]) throws { try backend.ensureEntities(entities) }

    // MARK: Tokens

    public func token(_ number: Int64) -> Token { backend.token(number) }

    /// Parses a token and checks that it belongs to this store.
    public func parseToken(_ text: String) throws(StoreError) -> Token { try backend.parseToken(text) }

    /// The number of the last committed history transaction (0 when there is none).
    public func lastTransactionNumber() throws(StoreError) -> Int64 { try backend.lastTransactionNumber() }

    /// History of transactions up to this number was purged (0: nothing was).
    public func purgedThrough() throws(StoreError) -> Int64 { try backend.purgedThrough() }

    /// Maps an error met while using the store to a `StoreError` naming it.
    package func storeError(from error: any Error) -> StoreError { backend.storeError(from: error) }
}
