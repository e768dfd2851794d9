import Foundation

/// What one replay (or rebuild) did to a derived view.
public struct ViewEffect: Sendable, Equatable {
    public var view: String
    /// Transactions replayed: `(fromTransaction, throughTransaction]`.
    public var fromTransaction: Int64
    public var throughTransaction: Int64
    public var insertedGroups = 0
    public var updatedGroups = 0
    public var deletedGroups = 0
    /// Groups whose minimum or maximum left the group and were recomputed from the entity table.
    public var recomputedGroups = 0
    /// True when the view was rebuilt from scratch rather than replayed.
    public var rebuilt = false

    public init(view: String, fromTransaction: Int64, throughTransaction: Int64) {
        self.view = view
        self.fromTransaction = fromTransaction
        self.throughTransaction = throughTransaction
    }

    public var changedGroups: Int { insertedGroups + updatedGroups + deletedGroups }
}
