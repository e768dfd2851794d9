import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterViews

/// Undo: the exact inverse of a history transaction, written as a new transaction (author `undo`,
/// context naming the undone token): inserted records deleted, updated attributes restored (a
/// re-keyed record moves back), deleted records put back with their id and every value. A
/// transaction whose records later ones changed is refused with their tokens, unless `cascade`
/// undoes those first (newest first, each its own inverse transaction): never a silent partial
/// undo. Views are replayed in the same store transaction.
///
/// The transaction's changes are streamed, never held (`forEachChange`), three passes per entity
/// (deletes, restores, put-backs, the order the inverse needs), and record ids are handed on
/// `chunk` at a time; what remains is the SQLite backend's list of put-back ids (8 bytes each).
/// Holding the changes instead grew with the transaction (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
///
/// A service over the handle it is given (GRDB style): it plans in the caller's snapshot and writes
/// in the caller's write transaction.
public struct HistoryUndo {
    /// The store's id (the tokens it names) and its entities, as registered.
    public let storeID: UUID
    public let entities: [EntityDescription]
    public var cascade = false
    public var author = "undo"
    /// Record ids handed to the store at a time.
    static let chunk = 10_000

    public init(storeID: UUID, entities: [EntityDescription]) {
        self.storeID = storeID
        self.entities = entities
    }

    /// The transactions to undo for `number`, newest first: `number` alone, or with `cascade` every
    /// later transaction that changed its records (and, in turn, theirs). Throws when one is purged,
    /// or when later ones exist without `cascade`.
    public func plan(_ number: Int64, in snapshot: StoreSnapshot) throws -> [Int64] {
        guard number > 0, number <= (try snapshot.history.lastTransactionNumber()) else { throw UndoError.noTransaction("there is no transaction \(number)") }
        let purged = try snapshot.history.purgedThrough()
        guard number > purged else { throw UndoError.purged(number: number, purgedThrough: purged) }
        let later = try snapshot.history.transactions(after: number - 1, through: .max, limit: nil)
        if later.first?.context == "migration" { throw UndoError.migration(number: number) }
        var planned: Set<Int64> = [number]
        var frontier = [number]
        let direct = try laterTouching(number, in: snapshot)
        guard cascade || direct.isEmpty else {
            throw UndoError.laterTransactions(number: number, tokens: direct.map { token($0).description })
        }
        while let current = frontier.popLast() {
            for later in try current == number ? direct : laterTouching(current, in: snapshot) where !planned.contains(later) {
                planned.insert(later)
                frontier.append(later)
            }
        }
        if later.dropFirst().contains(where: { $0.context == "migration" }) {
            for planned in planned { try checkAttributesExist(planned, in: snapshot) }
        }
        return planned.sorted(by: >)
    }

    /// Refuses a transaction that updated an attribute a later migration removed (history still
    /// reads it, the store no longer holds it): that change cannot be put back.
    private func checkAttributesExist(_ number: Int64, in snapshot: StoreSnapshot) throws {
        for (entity, _) in try entities(of: number, in: snapshot) {
            let held = Set(entity.attributes.map(\.name))
            try forEachChange(of: number, entity: entity, in: snapshot) { change in
                guard change.type == .update, let removed = change.changed.first(where: { !held.contains($0.attribute) }) else { return }
                throw UndoError.removedAttribute(number: number, entity: entity.name, attribute: removed.attribute)
            }
        }
    }

    private func token(_ number: Int64) -> Token { Token(storeID: storeID, transactionNumber: number) }

    /// The later transactions that changed records `number` changed.
    private func laterTouching(_ number: Int64, in snapshot: StoreSnapshot) throws -> [Int64] {
        var later = Set<Int64>()
        for (entity, _) in try entities(of: number, in: snapshot) {
            try forEachChunk(of: number, entity: entity, in: snapshot, where: { _ in true }) { ids in
                later.formUnion(try snapshot.history.transactionsTouching(entity, recordIDs: ids, after: number))
            }
        }
        return later.sorted()
    }

    /// The entities transaction `number` changed, in name order, with its counts of them.
    private func entities(of number: Int64, in snapshot: StoreSnapshot) throws -> [(EntityDescription, ChangeCounts)] {
        let transaction = try snapshot.history.transactions(after: number - 1, through: number, limit: nil).first
        return try (transaction?.entities ?? []).filter { $0.1.changes > 0 }.sorted { $0.0 < $1.0 }.map { name, counts in
            guard let entity = self.entities.first(where: { $0.name == name }) else {
                throw UndoError.removedEntity(number: number, entity: name)
            }
            return (entity, counts)
        }
    }

    /// Each change of `entity` in transaction `number`, streamed.
    private func forEachChange(of number: Int64, entity: EntityDescription, in snapshot: StoreSnapshot,
                               _ body: (Change) throws -> Void) throws {
        try snapshot.history.forEachChange(after: number - 1, through: number, filter: ChangeFilter(entities: [entity.name]), limit: nil, body)
    }

    /// The record ids of the changes of `entity` in `number` that pass `include`, `chunk` at a time.
    private func forEachChunk(of number: Int64, entity: EntityDescription, in snapshot: StoreSnapshot, where include: (Change) -> Bool,
                              _ body: ([Int64]) throws -> Void) throws {
        var ids: [Int64] = []
        try forEachChange(of: number, entity: entity, in: snapshot) { change in
            guard include(change) else { return }
            ids.append(change.recordID)
            if ids.count == Self.chunk {
                try body(ids)
                ids.removeAll(keepingCapacity: true)
            }
        }
        if !ids.isEmpty { try body(ids) }
    }

    /// Undoes `number` as `plan` says, then replays the views; returns the transactions written
    /// (one per undone transaction that changed something), all in `tx`.
    public func run(_ number: Int64, in tx: StoreWriteTransaction) throws -> (undone: [Int64], written: [Int64], warnings: [String]) {
        let order = try plan(number, in: tx.snapshot)
        var written: [Int64] = []
        for transaction in order {
            if let number = try undoOne(transaction, in: tx) { written.append(number) }
        }
        var warnings: [String] = []
        _ = try ViewMaintainer(entities: self.entities).replay(try tx.snapshot.allViews(), in: tx) { warnings.append("\($0)") }
        return (order, written, warnings)
    }

    /// Writes the inverse of one transaction; returns its number, or nil when it changed nothing.
    private func undoOne(_ number: Int64, in tx: StoreWriteTransaction) throws -> Int64? {
        let snapshot = tx.snapshot
        let entities = try entities(of: number, in: snapshot)
        guard !entities.isEmpty else { return nil }
        let relationships = try snapshot.records.registeredRelationships()
        let involved = involvedEntities(entities, relationships: relationships)
        let undo = try tx.records.beginUndo(involved)
        // A pass reads the transaction's changes of the entity: only the passes it needs run.
        for (entity, counts) in entities {
            if counts.inserted > 0 {
                try forEachChunk(of: number, entity: entity, in: snapshot, where: { $0.type == .insert }) { try undo.delete(entity, ids: $0) }
            }
            if counts.updated > 0 {
                try forEachChange(of: number, entity: entity, in: snapshot) { change in
                    guard change.type == .update else { return }
                    // A migration may have removed an attribute since: its values are not put back.
                    try undo.restore(entity, id: change.recordID, values: change.changed.filter { entity.attribute(named: $0.attribute) != nil }.map { ($0.attribute, $0.old) })
                }
            }
            if counts.deleted > 0 {
                try forEachChange(of: number, entity: entity, in: snapshot) { change in
                    guard change.type == .delete else { return }
                    // A later migration may have made an attribute required that this delete's image lacks.
                    if let missing = entity.attributes.first(where: { !$0.isOptional && (change.value($0.name) ?? .null) == .null }) {
                        throw UndoError.unrecordedValue(number: number, entity: entity.name, key: change.keyDescription, attribute: missing.name)
                    }
                    try undo.reinsert(entity, id: change.recordID, values: change.values.filter { entity.attribute(named: $0.0) != nil })
                }
            }
        }
        try applyDeleteRules(relationships, deleting: Set(entities.filter { $0.1.inserted > 0 }.map(\.0.name)), in: undo)
        let metadata = TransactionMetadata(author: author, context: "undo \(token(number))", sources: [])
        let counts = try undo.finish(metadata: metadata, entities: involved)
        return counts.reduce(0) { $0 + $1.1.changes } > 0 ? undo.number : nil
    }

    /// The entities the undo of a transaction over `changed` writes: those, and the descendants of
    /// those whose inserts it deletes (their delete rules may delete children).
    private func involvedEntities(_ changed: [(EntityDescription, ChangeCounts)], relationships: [Relationship]) -> [EntityDescription] {
        var names = changed.map(\.0.name)
        var frontier = changed.filter { $0.1.inserted > 0 }.map(\.0.name)
        while let parent = frontier.popLast() {
            for relationship in relationships where relationship.parent == parent && !names.contains(relationship.child) {
                names.append(relationship.child)
                frontier.append(relationship.child)
            }
        }
        return names.compactMap { name in entities.first { $0.name == name } }
    }

    /// A parent's delete rule, for the parents whose inserts the undo deleted (and, in turn, the
    /// children it deleted): cascade deletes the children left without a parent (each a delete
    /// change with its values), deny refuses the undo, nullify keeps them.
    private func applyDeleteRules(_ relationships: [Relationship], deleting: Set<String>, in undo: any UndoTransaction) throws {
        var deleted = deleting
        var pending = relationships
        while let index = pending.firstIndex(where: { deleted.contains($0.parent) }) {
            let relationship = pending.remove(at: index)
            guard relationship.deleteRule != .nullify, let parent = entities.first(where: { $0.name == relationship.parent }),
                  let child = entities.first(where: { $0.name == relationship.child }) else { continue }
            let orphans = try undo.orphans(child, parent: parent)
            guard !orphans.isEmpty else { continue }
            if relationship.deleteRule == .deny {
                throw UndoError.deniedDelete(parent: parent.name, relationship: relationship.name, child: child.name, children: orphans.count)
            }
            for start in stride(from: 0, to: orphans.count, by: Self.chunk) {
                try undo.delete(child, ids: Array(orphans[start..<min(start + Self.chunk, orphans.count)]))
            }
            deleted.insert(child.name)
        }
    }
}
