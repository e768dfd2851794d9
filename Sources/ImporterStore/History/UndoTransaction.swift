import ImporterModel
import ImporterSupport

/// The inverse of a history transaction being written as a new one (`importer undo`): opened by
/// `StoreBackend.beginUndo` inside `Store.write`. Records go back as they were: inserted ones are
/// deleted (a delete change with every value), updated attributes take their old values (an update
/// change), deleted records come back with their id and every value (an insert change).
public protocol UndoTransaction: AnyObject {
    /// The number of the transaction being written.
    var number: Int64 { get }

    /// Deletes the records `ids` of `entity`, recording each as a delete change.
    func delete(_ entity: EntityDescription, ids: [Int64]) throws
    /// Sets attributes of record `id` back to `values`; recorded as an update of what changed.
    func restore(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws
    /// Puts a deleted record back with its id and `values`; recorded as an insert. Throws
    /// `UndoError.keyTaken` when another record holds its key now.
    func reinsert(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws
    /// The ids of `child`'s records whose `parent` record is gone (after this undo's deletes).
    func orphans(_ child: EntityDescription, parent: EntityDescription) throws -> [Int64]
    /// Closes the entities and writes the history transaction; returns its counts per entity.
    func finish(metadata: TransactionMetadata, entities: [EntityDescription]) throws -> [(String, ChangeCounts)]
}

/// Why a transaction cannot be undone as asked.
public enum UndoError: Error, Sendable, Equatable, RemedialError {
    /// Later transactions touched records this one changed: undo them first, or with it (cascade).
    case laterTransactions(number: Int64, tokens: [String])
    /// A deleted record cannot come back: another record holds its key now.
    case keyTaken(entity: String, key: String, recordID: Int64)
    /// The transaction's history was purged.
    case purged(number: Int64, purgedThrough: Int64)
    /// There is no such transaction (or no transaction at all for `--last`).
    case noTransaction(String)
    /// Undoing would delete parents whose children a `deny` relationship keeps.
    case deniedDelete(parent: String, relationship: String, child: String, children: Int)
    /// The transaction is a migration (`importer migrate`): migrating back undoes it.
    case migration(number: Int64)
    /// The transaction updated an attribute a later migration removed: its change cannot be put back.
    case removedAttribute(number: Int64, entity: String, attribute: String)
    /// The transaction deleted a record whose image lacks an attribute a later migration made
    /// required (or added): putting it back would store a value nobody read.
    case unrecordedValue(number: Int64, entity: String, key: String, attribute: String)
    /// The transaction changed records of an entity a later migration removed.
    case removedEntity(number: Int64, entity: String)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .laterTransactions(let number, let tokens):
            "transaction \(number) cannot be undone alone: later transactions changed the same records (\(tokens.joined(separator: ", "))); undo them first, or \(words(.cascadeUndo))"
        case .keyTaken(let entity, let key, let recordID):
            "cannot restore the deleted \(entity) \(key): record \(recordID) holds that key now"
        case .purged(let number, let purgedThrough):
            "expired token: transaction \(number) cannot be undone, its history was purged (through transaction \(purgedThrough))"
        case .noTransaction(let what):
            "no transaction to undo: \(what)"
        case .deniedDelete(let parent, let relationship, let child, let children):
            "undo would delete \(parent) records that still have \(children) \(child) record(s) (relationship '\(relationship)' of \(parent) is delete: deny); nothing was written"
        case .migration(let number):
            "transaction \(number) is a migration: it is undone by migrating back to the model it replaced "
                + "(importer model versions lists them; --show N prints one for importer migrate --model); nothing was written"
        case .removedAttribute(let number, let entity, let attribute):
            "transaction \(number) cannot be undone: it changed \(entity).\(attribute), which a later migration removed; nothing was written"
        case .removedEntity(let number, let entity):
            "transaction \(number) cannot be undone: it changed entity \(entity), which a later migration removed (its history stays); nothing was written"
        case .unrecordedValue(let number, let entity, let key, let attribute):
            "transaction \(number) cannot be undone: it deleted \(entity) \(key), whose \(attribute) (required since a later migration) it did not record; nothing was written"
        }
    }
}

extension UndoError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .laterTransactions, .keyTaken, .deniedDelete, .migration, .removedAttribute, .unrecordedValue, .removedEntity: .badInput
        case .purged: .expiredToken
        case .noTransaction: .usage
        }
    }
}
