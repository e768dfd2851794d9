import Foundation
import ImporterModel

/// One import being written: opened by `StoreBackend.beginImport` inside `Store.write`, it upserts
/// batches of mapped records, keeps rejects, deletes what a sync did not see, and writes the
/// history transaction with its changes. Nothing of it is visible to others until `write` commits;
/// when `write` rolls back, none of it happened. Its two roles: writing the feeds' records
/// (`ImportWriting`), then closing each entity and the transaction (`ImportClosing`).
public protocol ImportTransaction: ImportWriting, ImportClosing {}

/// The records an import writes: each feed's batches through a writer its store owns, rejects,
/// and what became of repeated keys.
public protocol ImportWriting: AnyObject {
    /// The number the history transaction gets if the import changes anything.
    var number: Int64 { get }
    /// The run number the rejects are stored under (nil until the first reject).
    var rejectRun: Int64? { get }
    /// A writer for one feed's records of `writing.entity`, one feed at a time, in the run's order.
    func beginFeed(_ writing: FeedWriteOptions) throws -> any FeedWriter
    /// Makes every write of `entity` so far take effect in the store (a store that stages records,
    /// PostgreSQL, merges them here; one that writes them as they come has nothing to do) and
    /// returns the repeated keys found doing so. Called once the feeds are read, before drift, sync
    /// deletes and `closeEntity`, which would otherwise do it themselves: so the merge is timed as
    /// part of the upsert, not of what happens to come next.
    func applyUpserts(_ entity: EntityDescription) throws -> DuplicateLog
    /// Keeps a rejected record with this import's run.
    func recordReject(_ reject: Reject, at timestamp: String) throws
}

/// The end of an import, once its feeds are written: per entity drift, sync deletes and the
/// change counts, then the history transaction.
public protocol ImportClosing: AnyObject {
    /// Key drift (`entity.drift`): re-keys each stored record this import did not write that
    /// unambiguously pairs with a record it inserted (see `KeyDrift`), of those in `window` when
    /// there is one (a windowed sync); returns how many.
    func reconcileDrift(_ entity: EntityDescription, within window: SyncWindow?) throws -> Int
    /// Sync: deletes `entity`'s stored records that this import did not write, except those whose
    /// key is in `keeping` (in the key's order: records the feed holds that the run rejected), and,
    /// for a windowed sync, those outside `window`; each recorded as a delete change with its
    /// tombstone. Returns how many.
    func deleteRecordsNotWritten(_ entity: EntityDescription, keeping: [[Value]], within window: SyncWindow?) throws -> Int
    /// Deletes the stored records of `entity` whose keys are `keys` (records the feed marked
    /// deleted: `delete-marker`), each a delete change with its tombstone; returns how many (a key
    /// the store does not hold deletes nothing).
    func deleteRecords(_ entity: EntityDescription, keys: [[Value]]) throws -> Int
    /// How many records of `entity` lie in `window` now (the run's writes included).
    func recordCount(_ entity: EntityDescription, within window: SyncWindow) throws -> Int
    /// A relationship's snapshot: deletes the stored `child` records this import did not write
    /// whose `parent` record it wrote, except the children of the parents in `keeping` (their keys,
    /// in the parent key's order: parents whose array the feed left out); each a delete change
    /// with its tombstone. Returns how many.
    func deleteChildrenNotWritten(_ child: EntityDescription, parent: EntityDescription, keeping: [[Value]]) throws -> Int
    /// Cascade, once `parent`'s deletes are made: deletes the `child` records whose parent is gone,
    /// each a delete change with its tombstone. Returns how many.
    func deleteOrphans(_ child: EntityDescription, parent: EntityDescription) throws -> Int
    /// Records `entity`'s changes (updates and deletes as made, inserts with their final values)
    /// and returns its counts: inserted, updated, deleted, unchanged and duplicates (rejected ones
    /// not included).
    func closeEntity(_ entity: EntityDescription) throws -> ChangeCounts
    /// After `closeEntity`: the optional attributes of `entity` this import set to null on records
    /// that held a value, with how many records hold one (`NulledAttribute`), and the non-key
    /// attributes it changed on records it updated, with examples of the change for those changed
    /// on more than `examplesAbove` records (`UpdatedAttribute`; not counted when nil).
    func attributeChanges(_ entity: EntityDescription, examplesAbove: Int?) throws -> AttributeChanges
    /// Writes the history transaction with `counts` (per entity) when something changed; returns
    /// whether it did.
    func finish(metadata: TransactionMetadata, counts: [(String, ChangeCounts)]) throws -> Bool
}
