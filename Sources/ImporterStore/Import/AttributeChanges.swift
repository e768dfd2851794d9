/// What one import did to each attribute of an entity through its updates: the inputs of the
/// null-storm guard (`NulledAttribute`) and of the mass-update guard (`UpdatedAttribute`), found in
/// one scan of the import's change rows.
public struct AttributeChanges: Sendable, Equatable {
    public var nulled: [NulledAttribute]
    public var updated: [UpdatedAttribute]

    public init(nulled: [NulledAttribute] = [], updated: [UpdatedAttribute] = []) {
        self.nulled = nulled
        self.updated = updated
    }
}
