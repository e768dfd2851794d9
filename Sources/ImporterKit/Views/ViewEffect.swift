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

/// A difference between a view and its full recomputation (`views verify`).
public struct ViewDifference: Sendable, Equatable, CustomStringConvertible {
    public var view: String
    public var group: [Value]
    public var column: String
    public var incremental: Value?
    public var recomputed: Value?

    public var description: String {
        "\(view) group (\(group.map(\.description).joined(separator: ", "))): \(column) is \(incremental?.description ?? "missing") incrementally, \(recomputed?.description ?? "missing") recomputed"
    }
}

extension Value {
    /// SQLite's ordering: NULL < numbers < text.
    static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.text(let x), .text(let y)): return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        case (.text, _): return 1
        case (_, .text): return -1
        default:
            let x = a.doubleValue ?? 0, y = b.doubleValue ?? 0
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// Equal, allowing real numbers to differ by summation order (relative 1e-9).
    func nearlyEquals(_ other: Value) -> Bool {
        if case .real(let x) = self, let y = other.doubleValue { return abs(x - y) <= 1e-9 * max(1, abs(x), abs(y)) }
        if case .real(let y) = other, let x = doubleValue { return abs(x - y) <= 1e-9 * max(1, abs(x), abs(y)) }
        return isSame(as: other)
    }
}
