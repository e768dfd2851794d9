import Foundation
import ImporterModel

/// What happened to a record in a history transaction.
public enum ChangeType: String, Sendable, Codable, CaseIterable {
    case insert, update, delete
}

/// An attribute value before and after an update.
public struct AttributeChange: Sendable, Equatable {
    public var attribute: String
    public var old: Value
    public var new: Value

    public init(attribute: String, old: Value, new: Value) {
        self.attribute = attribute
        self.old = old
        self.new = new
    }
}

/// One changed record in one history transaction (Core Data's `NSPersistentHistoryChange`).
///
/// `key` identifies the record (after the change; before it for deletes). Inserts carry the
/// record's values in `values`; updates carry the changed attributes with old and new values in
/// `changed` (and the record's values after the update in `values`); deletes carry the record's
/// values before deletion in `values`, of which `tombstone` is the model's preserved subset.
public struct Change: Sendable, Equatable {
    public var transactionNumber: Int64
    public var entity: String
    public var recordID: Int64
    public var type: ChangeType
    public var key: [(String, Value)]
    public var changed: [AttributeChange]
    public var values: [(String, Value)]
    public var tombstone: [(String, Value)]

    public init(transactionNumber: Int64, entity: String, recordID: Int64, type: ChangeType, key: [(String, Value)],
                changed: [AttributeChange], values: [(String, Value)], tombstone: [(String, Value)]) {
        self.transactionNumber = transactionNumber
        self.entity = entity
        self.recordID = recordID
        self.type = type
        self.key = key
        self.changed = changed
        self.values = values
        self.tombstone = tombstone
    }

    /// The value of `attribute` after the change (before it for deletes).
    public func value(_ attribute: String) -> Value? {
        values.first { $0.0 == attribute }?.1
    }

    /// True for an update that moved the record's key (key drift): the record kept its identity.
    public var isRekey: Bool {
        type == .update && changed.contains { change in key.contains { $0.0 == change.attribute } }
    }

    /// The key as it was before a re-key (the key otherwise).
    public var previousKeyDescription: String {
        key.map { name, value in (changed.first { $0.attribute == name }?.old ?? value).description }.joined(separator: ", ")
    }

    /// The key as display text: the values joined with ", ".
    public var keyDescription: String {
        key.map { $0.1.description }.joined(separator: ", ")
    }

    public static func == (lhs: Change, rhs: Change) -> Bool {
        func same(_ a: [(String, Value)], _ b: [(String, Value)]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        }
        return lhs.transactionNumber == rhs.transactionNumber && lhs.entity == rhs.entity && lhs.recordID == rhs.recordID
            && lhs.type == rhs.type && same(lhs.key, rhs.key) && lhs.changed == rhs.changed
            && same(lhs.values, rhs.values) && same(lhs.tombstone, rhs.tombstone)
    }
}
