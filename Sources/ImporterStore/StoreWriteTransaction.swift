/// What the body of `Store.write` and `Store.inTransaction` is handed: the open write transaction,
/// its operations by role (each role's readers too). Everything done through it commits or rolls
/// back together, as the body ends.
///
/// Invariant: valid only inside the body it is handed to (as GRDB's `Database`); the store's write
/// lock is held for as long as it is.
public struct StoreWriteTransaction {
    /// Transactions and their changes; purging.
    public let history: any HistoryWriting
    /// The entities' records and tables; imports and undos.
    public let records: any RecordWriting
    /// Derived views' tables: registering, replaying, rebuilding.
    public let views: any ViewWriting
    /// Named consumers and their tokens.
    public let consumers: any ConsumerWriting
    /// Rejects (clearing them) and the store's counts.
    public let rejects: any RejectAndStatusWriting
    /// What the store keeps of feeds fetched from URLs.
    public let sources: any SourceStateWriting
    private let backend: any StoreBackend

    init(_ backend: any StoreBackend) {
        sources = backend
        self.backend = backend
        history = backend
        records = backend
        views = backend
        consumers = backend
        rejects = backend
    }

    /// The same transaction seen through its readers only.
    public var snapshot: StoreSnapshot { StoreSnapshot(backend) }
}
