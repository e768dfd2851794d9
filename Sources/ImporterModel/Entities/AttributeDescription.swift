/// The storage and validation type of an attribute.
public enum AttributeType: String, Sendable, CaseIterable, Codable {
    case text, integer, real, boolean, date, datetime
}

/// One attribute of an entity: a column of the entity's table.
public struct AttributeDescription: Sendable, Equatable, Codable {
    /// The attribute's name; also its column name. A validated SQL identifier.
    public var name: String
    public var type: AttributeType
    /// Optional attributes accept NULL; required ones reject a record whose value is null.
    public var isOptional: Bool
    /// Human-readable unit or meaning, shown by `model show`.
    public var documentation: String?

    public init(name: String, type: AttributeType, isOptional: Bool = true, documentation: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.documentation = documentation
    }
}
