import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// The JSON forms of changes, transactions and counts shared by every JSON output (the contract
/// documented in Docs/COMMANDS.md, "JSON report").
extension JSONWriter {
    public mutating func writeCounts(_ counts: ChangeCounts) {
        beginObject()
        field("inserted", counts.inserted)
        field("updated", counts.updated)
        field("deleted", counts.deleted)
        field("unchanged", counts.unchanged)
        field("rejected", counts.rejected)
        field("duplicates", counts.duplicates)
        field("rekeyed", counts.rekeyed)
        endObject()
    }

    public mutating func writeEntities(_ entities: [(String, ChangeCounts)]) {
        beginObject()
        for (name, counts) in entities {
            key(name)
            writeCounts(counts)
        }
        endObject()
    }

    public mutating func writePairs(_ pairs: [(String, Value)]) {
        beginObject()
        for (name, value) in pairs { field(name, value) }
        endObject()
    }

    /// `{"entity", "type", "record_id", "key", [a child's "parent": {"entity", "relationship",
    /// "key"}], then "values" | "changed" | "tombstone"}`; with a
    /// transaction (NDJSON lines), first its `token`, `transaction`, `timestamp` and `author`.
    public mutating func writeChange(_ change: Change, token: String? = nil, transaction: HistoryTransaction? = nil, consumer: String? = nil,
                                     parents: ChildParents = .none) {
        beginObject()
        if let consumer { field("consumer", consumer) }
        if let token = transaction?.token ?? token { field("token", token.isEmpty ? .null : .text(token)) }
        if let transaction {
            field("transaction", transaction.number)
            field("timestamp", transaction.timestamp)
            field("author", transaction.author)
        }
        field("entity", change.entity)
        field("type", change.type.rawValue)
        field("record_id", change.recordID)
        key("key")
        writePairs(change.key)
        if let parent = parents.parent(of: change) {
            key("parent")
            beginObject()
            field("entity", parent.relationship.parent)
            field("relationship", parent.relationship.name)
            key("key")
            writePairs(parent.key)
            endObject()
        }
        switch change.type {
        case .insert:
            key("values")
            writePairs(change.values)
        case .update:
            key("changed")
            beginObject()
            for attributeChange in change.changed {
                key(attributeChange.attribute)
                beginObject()
                field("old", attributeChange.old)
                field("new", attributeChange.new)
                endObject()
            }
            endObject()
        case .delete:
            key("tombstone")
            writePairs(change.tombstone)
        }
        endObject()
    }

    /// The transaction's own fields (without changes), as members of an open object.
    /// An empty token (a dry run's transaction, rolled back) is written as null.
    public mutating func writeTransactionFields(_ transaction: HistoryTransaction) {
        field("token", transaction.token.isEmpty ? .null : .text(transaction.token))
        field("number", transaction.number)
        field("timestamp", transaction.timestamp)
        field("author", transaction.author)
        field("context", transaction.context)
        field("process_id", transaction.processID)
        field("host", transaction.host)
        field("sources", strings: transaction.sources)
    }

    /// `"name": {<transaction fields>}`, or `null` without a transaction.
    public mutating func field(_ name: String, transaction: HistoryTransaction?) {
        key(name)
        guard let transaction else { return null() }
        beginObject()
        writeTransactionFields(transaction)
        endObject()
    }

    /// `{"<view>": {"inserted", "updated", "deleted", "recomputed", "rebuilt", "from_transaction", "through_transaction"}}`.
    public mutating func writeViews(_ effects: [ViewEffect]) {
        beginObject()
        for effect in effects {
            key(effect.view)
            beginObject()
            field("inserted", effect.insertedGroups)
            field("updated", effect.updatedGroups)
            field("deleted", effect.deletedGroups)
            field("recomputed", effect.recomputedGroups)
            field("rebuilt", effect.rebuilt)
            field("from_transaction", effect.fromTransaction)
            field("through_transaction", effect.throughTransaction)
            endObject()
        }
        endObject()
    }

    /// `{"name", "kind", "token", "transaction", "expired", "lag": {"transactions", "changes"} | null,
    /// "last_replay_at", "entities", "attributes", "exclude_authors"}`.
    public mutating func writeConsumer(_ status: ConsumerStatus) {
        let consumer = status.consumer
        beginObject()
        field("name", consumer.name)
        field("kind", consumer.kind.rawValue)
        field("token", status.token)
        field("transaction", consumer.tokenNumber)
        field("expired", status.expired)
        key("lag")
        if let lag = status.lag {
            beginObject()
            field("transactions", lag.transactions)
            field("changes", lag.changes)
            endObject()
        } else {
            null()
        }
        field("last_replay_at", consumer.lastReplayAt.map(Value.text) ?? .null)
        field("entities", strings: consumer.entities)
        field("attributes", strings: consumer.attributes)
        field("exclude_authors", strings: consumer.excludedAuthors)
        endObject()
    }

}
