import Foundation
import ImporterModel

/// A named reader of history whose token (the last transaction it consumed) is kept in the store,
/// with the filters that select the changes it cares about (Core Data's history fetch predicates).
public struct Consumer: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// A program outside the store, fed by `history --consumer` or `watch`.
        case external
        /// A derived view, maintained inside the store (exactly once: its rows and token commit together).
        case view
    }

    public var name: String
    public var kind: Kind
    /// The last transaction number consumed; 0 before any.
    public var tokenNumber: Int64
    /// Entities whose changes count; empty means all.
    public var entities: [String]
    /// Attributes whose updates count (inserts and deletes always count); empty means all.
    public var attributes: [String]
    /// Authors whose transactions are skipped (typically the consumer's own writes).
    public var excludedAuthors: [String]
    public var createdAt: String
    public var lastReplayAt: String?

    public init(name: String, kind: Kind, tokenNumber: Int64, entities: [String] = [], attributes: [String] = [],
                excludedAuthors: [String] = [], createdAt: String = Timestamp.now(), lastReplayAt: String? = nil) {
        self.name = name
        self.kind = kind
        self.tokenNumber = tokenNumber
        self.entities = entities
        self.attributes = attributes
        self.excludedAuthors = excludedAuthors
        self.createdAt = createdAt
        self.lastReplayAt = lastReplayAt
    }

    public var filter: ChangeFilter {
        ChangeFilter(entities: entities, attributes: attributes, excludedAuthors: excludedAuthors)
    }

    /// Whether the consumer needs history purged through `purgedThrough`: its token is older.
    public func isExpired(purgedThrough: Int64) -> Bool {
        tokenNumber < purgedThrough
    }

    /// Names of consumers (and views): letters, digits, `_`, `-`, `.`; 1 to 64 characters.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "a consumer name has 1 to 64 characters" }
        let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0) }
        return allowed ? nil : "consumer name '\(name)' may only have letters, digits, _, - and ."
    }
}

/// Which changes a consumer sees.
public struct ChangeFilter: Sendable, Equatable {
    public var entities: [String]
    public var attributes: [String]
    public var excludedAuthors: [String]
    /// Only the changes of these records (record ids per entity; all when empty): a record's
    /// timeline, its children's included.
    public var records: [String: Set<Int64>]

    public init(entities: [String] = [], attributes: [String] = [], excludedAuthors: [String] = [], records: [String: Set<Int64>] = [:]) {
        self.entities = entities
        self.attributes = attributes
        self.excludedAuthors = excludedAuthors
        self.records = records
    }

    public static let all = ChangeFilter()

    public func includes(author: String) -> Bool { !excludedAuthors.contains(author) }

    public func includes(entity: String) -> Bool { entities.isEmpty || entities.contains(entity) }

    /// Inserts and deletes always pass; an update passes when it changed a filtered attribute.
    public func includes(_ change: Change) -> Bool {
        guard includes(entity: change.entity), records.isEmpty || records[change.entity]?.contains(change.recordID) == true else { return false }
        // A re-key counts like the insert and delete it replaces: the record's identity moved.
        guard change.type == .update, !attributes.isEmpty, !change.isRekey else { return true }
        return change.changed.contains { attributes.contains($0.attribute) }
    }
}
