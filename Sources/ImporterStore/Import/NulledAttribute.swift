/// An attribute an import set to null on records that held a value: the input of the null-storm
/// guard (`--max-nulled`), which refuses a run that nulls most of an attribute's values (a field
/// the upstream dropped, a path that stopped matching).
public struct NulledAttribute: Sendable, Equatable {
    public var entity: String
    public var attribute: String
    /// Records whose value the import set to null.
    public var nulled: Int
    /// Records that held a value: those that still hold one after the import, plus `nulled`.
    public var holding: Int

    public init(entity: String, attribute: String, nulled: Int, holding: Int) {
        self.entity = entity
        self.attribute = attribute
        self.nulled = nulled
        self.holding = holding
    }
}
