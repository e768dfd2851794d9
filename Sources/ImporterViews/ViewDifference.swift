import ImporterModel

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
