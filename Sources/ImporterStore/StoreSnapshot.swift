/// What the body of `Store.read` is handed: the store's readers, by role, all seeing one
/// consistent snapshot.
///
/// Invariant: valid only inside the body it is handed to (as GRDB's `Database`); it exposes no
/// method that writes.
public struct StoreSnapshot {
    /// Transactions and their changes.
    public let history: any HistoryReading
    /// The entities' records.
    public let records: any RecordReading
    /// Derived views' tables.
    public let views: any ViewReading
    /// Named consumers and their tokens.
    public let consumers: any ConsumerReading
    /// Rejects and the store's counts.
    public let rejects: any RejectAndStatusReading
    /// What the store keeps of feeds fetched from URLs.
    public let sources: any SourceStateReading

    init(_ backend: any StoreBackend) {
        sources = backend
        history = backend
        records = backend
        views = backend
        consumers = backend
        rejects = backend
    }
}
