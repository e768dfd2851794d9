/// Exclusive per-consumer locks across processes and hosts of one store: at most one delivery
/// (`importer deliver`) per consumer runs at a time.
///
/// Invariants: a lock is held by the process that took it until `unlockConsumer` or the end of
/// that process, however it ends (`kill -9` included: SQLite's lock file is `flock`ed, PostgreSQL's
/// lock is the session's advisory lock); it is independent of the store's writer lock, and is never
/// inherited by the programs the process starts.
public protocol ConsumerLocking: AnyObject {
    /// Takes the lock of consumer `name` without waiting; false when another process holds it.
    func tryLockConsumer(_ name: String) throws(StoreError) -> Bool
    /// Releases the lock of consumer `name` (nothing when this process does not hold it).
    func unlockConsumer(_ name: String)
}
