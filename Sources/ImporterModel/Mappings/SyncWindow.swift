/// The part of an entity a `--sync` covers when its feed covers part of it: the stored records
/// whose `attribute` (the feed mapping's `sync: {scope: …}`) lies from `from` through `to`, in the
/// store's representation (an unset bound is open). A windowed sync deletes only the records of
/// the window the feeds no longer hold; a record whose scope value is null is in no window.
public struct SyncWindow: Sendable, Equatable, CustomStringConvertible {
    public var entity: String
    public var attribute: String
    public var from: Value?
    public var to: Value?
    /// What set the window, for the report: `the URL's since`, `the feed`, `--window-from`.
    public var origin: String

    public init(entity: String, attribute: String, from: Value? = nil, to: Value? = nil, origin: String) {
        self.entity = entity
        self.attribute = attribute
        self.from = from
        self.to = to
        self.origin = origin
    }

    /// `Fireball.date from 2024-01-01 00:00:00 through 2024-03-01 00:00:00 (the feed's own range)`.
    public var description: String {
        "\(entity).\(attribute)" + (from.map { " from \($0)" } ?? "") + (to.map { " through \($0)" } ?? "")
            + (from == nil && to == nil ? " (every value)" : "") + " (\(origin))"
    }

    /// Whether a scope attribute of `type` can bound a window: an ordered value.
    public static func canScope(_ type: AttributeType) -> Bool {
        type != .text && type != .boolean
    }
}
