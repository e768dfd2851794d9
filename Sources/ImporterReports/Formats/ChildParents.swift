import ImporterModel
import ImporterStore

/// Which parent each child record belongs to, from a store's relationships: a child's key is its
/// parent's key followed by its own, so the parent of a change is read off its key.
public struct ChildParents: Sendable {
    private var byChild: [String: Relationship]

    public init(_ relationships: [Relationship]) {
        byChild = Dictionary(relationships.map { ($0.child, $0) }) { first, _ in first }
    }

    /// A store without relationships.
    public static let none = ChildParents([])

    /// The relationship whose child `change`'s record is, with the parent's entity and key.
    public func parent(of change: Change) -> (relationship: Relationship, key: [(String, Value)])? {
        parent(of: change.entity, keyed: change.key)
    }

    /// The relationship whose child the record of `entity` keyed `key` is, with its parent's key.
    public func parent(of entity: String, keyed key: [(String, Value)]) -> (relationship: Relationship, key: [(String, Value)])? {
        guard let relationship = byChild[entity], key.count > relationship.ownKey.count else { return nil }
        return (relationship, Array(key.dropLast(relationship.ownKey.count)))
    }
}
