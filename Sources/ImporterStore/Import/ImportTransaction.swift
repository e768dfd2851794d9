import Foundation
import ImporterModel

/// One import being written: opened by `StoreBackend.beginImport` inside `Store.write`, it upserts
/// batches of mapped records, keeps rejects, deletes what a sync did not see, and writes the
/// history transaction with its changes. Nothing of it is visible to others until `write` commits;
/// when `write` rolls back, none of it happened. Its two roles: writing the feeds' records
/// (`ImportWriting`), then closing each entity and the transaction (`ImportClosing`).
public protocol ImportTransaction: ImportWriting, ImportClosing {}

/// The records an import writes: batches, rejects, and what became of repeated keys.
public protocol ImportWriting: AnyObject {
    /// The number the history transaction gets if the import changes anything.
    var number: Int64 { get }
    /// The run number the rejects are stored under (nil until the first reject).
    var rejectRun: Int64? { get }

    /// Receives each record whose key was already written in this import, with the earlier
    /// record's place and what became of it (`DuplicateRecord.resolution`), in feed order within a
    /// batch; during `upsert`, or at the latest during `closeEntity`. Set before the first upsert.
    /// What it throws ends the import.
    var onDuplicate: ((DuplicateRecord) throws -> Void)? { get set }

    /// Upserts `batch` (records of `entity` supplying the attributes at `columns`) by the unique
    /// key: feed values win for the supplied attributes; a record equal to the stored one writes
    /// nothing. A key already written in this import by the same feed is kept as
    /// `batch.duplicates` says (last, or first: rejected ones are dropped too); by another feed,
    /// the batch's supplied attributes are merged over it. Each is reported to `onDuplicate`.
    func upsert(_ batch: RecordBatch, of entity: EntityDescription, columns: [Int]) throws
    /// A filter that drops from the batches of one feed (records of `entity` supplying the
    /// attributes at `columns`) the records the store already holds with exactly their values,
    /// so that only the others need sorting and upserting; nil when the backend has no cheap way
    /// to tell (the default) or the store holds nothing to compare. The caller owns it for that
    /// feed, hands it batches in feed order from any batch on, each before `upsert` receives what
    /// it keeps, and lets go of it once the feed is read (it may hold megabytes).
    func unchangedRecordFilter(for entity: EntityDescription, columns: [Int]) throws -> (any UnchangedRecordFilter)?
    /// A matcher that notes, in batches of `entity`'s records (supplying the attributes at
    /// `columns`) coming in ascending key order, the records the store held with exactly their
    /// values before the import (`RecordBatch.noteStoredUnchanged`), on a thread other than the
    /// import's, ahead of `upsert`; nil when the backend has no cheap way to tell (the default) or
    /// the store held nothing. The caller hands it every batch of one merged stream, in order, on
    /// one thread, and lets go of it at the stream's end.
    func unchangedRowMatcher(for entity: EntityDescription, columns: [Int]) throws -> sending (any UnchangedRowMatcher)?
    /// Whether upserts in key order across batches are markedly cheaper (a store whose unique
    /// index is written record by record, SQLite): the importer then hands it a feed that is not in
    /// key order sorted, through temporary files, when the feed is too large to sort in memory.
    var prefersKeyOrder: Bool { get }
    /// Makes every upsert of `entity` so far take effect in the store (a backend that stages
    /// records, PostgreSQL, merges them here; one that writes them as they come has nothing to do).
    /// Called once the feeds are read, before drift, sync deletes and `closeEntity`, which would
    /// otherwise do it themselves: so the merge is timed as part of the upsert, not of what
    /// happens to come next.
    func applyUpserts(_ entity: EntityDescription) throws
    /// Keeps a rejected record with this import's run.
    func recordReject(_ reject: Reject, at timestamp: String) throws
    /// Where the import may keep unnamed temporary files (`--temp-dir`, else beside the store or
    /// in `$TMPDIR`); called before the first upsert. A backend that keeps none ignores it.
    func useTemporaryDirectory(_ path: String)
}

/// The end of an import, once its feeds are written: per entity drift, sync deletes and the
/// change counts, then the history transaction.
public protocol ImportClosing: AnyObject {
    /// Key drift (`entity.drift`): re-keys each stored record this import did not write that
    /// unambiguously pairs with a record it inserted (see `KeyDrift`); returns how many.
    func reconcileDrift(_ entity: EntityDescription) throws -> Int
    /// Sync: deletes `entity`'s stored records that this import did not write, each recorded as a
    /// delete change with its tombstone; returns how many.
    func deleteRecordsNotWritten(_ entity: EntityDescription) throws -> Int
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

extension ImportWriting {
    public func applyUpserts(_ entity: EntityDescription) throws {}
    public func unchangedRecordFilter(for entity: EntityDescription, columns: [Int]) throws -> (any UnchangedRecordFilter)? { nil }
    public func unchangedRowMatcher(for entity: EntityDescription, columns: [Int]) throws -> sending (any UnchangedRowMatcher)? { nil }
    public var prefersKeyOrder: Bool { false }
    public func useTemporaryDirectory(_ path: String) {}
}

/// Drops from a feed's batches the records the store holds unchanged (`ImportWriting.unchangedRecordFilter`).
///
/// Invariants: a dropped record is counted unchanged and its key written, as `upsert` would have
/// done; a key whose record was kept keeps its later records too (`upsert` resolves them in feed
/// order); a key `upsert` already wrote in the import is kept.
public protocol UnchangedRecordFilter: AnyObject {
    /// `batch` without the records dropped (the same batch when none is).
    func dropping(_ batch: RecordBatch) -> RecordBatch
}

/// Notes which records of key-ordered batches the store held unchanged before the import
/// (`ImportWriting.unchangedRowMatcher`), so that `upsert` need not read their stored rows.
///
/// Invariant: a record is noted with a stored row's id only when that row held exactly the
/// record's key and values (as `IS` compares them) when the import began; any doubt notes 0.
/// `upsert` skips a noted record only if the import has not written its row since (the row is
/// then as it was), so a note can never hide a change or a repeated key.
public protocol UnchangedRowMatcher: AnyObject {
    func note(_ batch: inout RecordBatch) throws
}
