/// What the store knows of one kind of record: its table, attributes, unique key and tombstone.
///
/// Invariants (checked by `validate()`): attribute names are any printable text within
/// `SQLIdentifier.Limit.attribute` bytes (`SQLIdentifier.attributeProblem`), entity and table names
/// plain SQL identifiers; the unique key and tombstone
/// attributes name declared attributes; key attributes are required; the table name does not start
/// with `importer_` or `sqlite_` (the store's own namespaces). Every record also has an integer `id`
/// column that never changes once assigned, so `id` is not a valid attribute name.
public struct EntityDescription: Sendable, Equatable, Codable {
    public var name: String
    public var tableName: String
    public var attributes: [AttributeDescription]
    /// The attributes that identify a record, in order. One or more.
    public var uniqueKey: [String]
    /// Attributes copied into a delete change so consumers can tell what disappeared. Always
    /// includes the unique key.
    public var tombstoneAttributes: [String]
    /// Attributes computed from the stored ones (not stored), for views.
    public var derivedAttributes: [DerivedAttribute]
    /// A key attribute the source may move a little (reconciled as an update by `--sync`).
    public var drift: KeyDrift?
    /// Secondary indexes (`indexes:`), each the attributes it orders records by; kept in the
    /// registered definition only when there are some, so stores written without keep their text.
    public var indexes: [[String]] = []

    private enum CodingKeys: String, CodingKey {
        case name, tableName, attributes, uniqueKey, tombstoneAttributes, derivedAttributes, drift, indexes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        tableName = try container.decode(String.self, forKey: .tableName)
        attributes = try container.decode([AttributeDescription].self, forKey: .attributes)
        uniqueKey = try container.decode([String].self, forKey: .uniqueKey)
        tombstoneAttributes = try container.decode([String].self, forKey: .tombstoneAttributes)
        derivedAttributes = try container.decode([DerivedAttribute].self, forKey: .derivedAttributes)
        drift = try container.decodeIfPresent(KeyDrift.self, forKey: .drift)
        indexes = try container.decodeIfPresent([[String]].self, forKey: .indexes) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(tableName, forKey: .tableName)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(uniqueKey, forKey: .uniqueKey)
        try container.encode(tombstoneAttributes, forKey: .tombstoneAttributes)
        try container.encode(derivedAttributes, forKey: .derivedAttributes)
        try container.encodeIfPresent(drift, forKey: .drift)
        if !indexes.isEmpty { try container.encode(indexes, forKey: .indexes) }
    }

    public init(name: String, tableName: String, attributes: [AttributeDescription], uniqueKey: [String], tombstoneAttributes: [String],
                derivedAttributes: [DerivedAttribute] = [], drift: KeyDrift? = nil) {
        self.drift = drift
        self.name = name
        self.tableName = tableName
        self.attributes = attributes
        self.uniqueKey = uniqueKey
        self.tombstoneAttributes = tombstoneAttributes
        self.derivedAttributes = derivedAttributes
    }

    public func derivedAttribute(named name: String) -> DerivedAttribute? {
        derivedAttributes.first { $0.name == name }
    }

    /// The type of a stored or derived attribute.
    public func type(of name: String) -> AttributeType? {
        attribute(named: name)?.type ?? derivedAttribute(named: name)?.type
    }

    /// The expression of a stored or derived attribute.
    public func expression(for name: String) -> Expression? {
        if attribute(named: name) != nil { return .attribute(name) }
        return derivedAttribute(named: name)?.expression
    }

    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    public func attributeIndex(named name: String) -> Int? {
        attributes.firstIndex { $0.name == name }
    }

    /// Indices (into `attributes`) of the unique key attributes, in key order.
    public var keyIndices: [Int] { uniqueKey.compactMap(attributeIndex(named:)) }

    /// Indices of the tombstone attributes: the key first, then the others in declaration order.
    public var tombstoneIndices: [Int] {
        var indices = keyIndices
        for (index, attribute) in attributes.enumerated()
        where tombstoneAttributes.contains(attribute.name) && !indices.contains(index) {
            indices.append(index)
        }
        return indices
    }

    /// Why `name` cannot name an attribute: every entity table has its record id in a column named
    /// `id` (and importer's own columns start with `importer_`), so neither may be declared.
    static func reservedColumnProblem(_ name: String) -> String? {
        if name.lowercased() == "id" {
            return "attribute name '\(name)' is reserved: every entity table keeps its record id in a column named id. "
                + "Rename the attribute and map the feed's field to it, e.g. {attribute: source_id, field: \(name)}"
        }
        if name.lowercased().hasPrefix("importer_") {
            return "attribute name '\(name)' uses the prefix importer_, reserved for importer's own columns"
        }
        return nil
    }

    /// Reports every problem with this description.
    public func validate() -> [String] {
        var problems: [String] = []
        if let problem = SQLIdentifier.problem(with: name) { problems.append("entity name: \(problem)") }
        if let problem = SQLIdentifier.problem(with: tableName, limit: SQLIdentifier.Limit.table) {
            problems.append("entity \(name): table name: \(problem)")
        } else if SQLIdentifier.isReserved(tableName) {
            problems.append("entity \(name): table name '\(tableName)' uses a reserved prefix (importer_, sqlite_)")
        }
        if attributes.isEmpty { problems.append("entity \(name): no attributes") }
        var seen = Set<String>()
        for attribute in attributes {
            if let problem = SQLIdentifier.attributeProblem(with: attribute.name) {
                problems.append("entity \(name): attribute: \(problem)")
            }
            if let problem = Self.reservedColumnProblem(attribute.name) { problems.append("entity \(name): \(problem)") }
            if !seen.insert(attribute.name.lowercased()).inserted {
                problems.append("entity \(name): attribute '\(attribute.name)' is declared twice")
            }
        }
        if uniqueKey.isEmpty { problems.append("entity \(name): the unique key is empty") }
        for key in uniqueKey {
            guard let attribute = attribute(named: key) else {
                problems.append("entity \(name): unique key attribute '\(key)' is not declared")
                continue
            }
            if attribute.isOptional {
                problems.append("entity \(name): unique key attribute '\(key)' must be required (not optional)")
            }
        }
        if let drift { problems += drift.problems(entity: self) }
        for index in indexes {
            if index.isEmpty { problems.append("entity \(name): an index names no attribute") }
            for column in index where attribute(named: column) == nil {
                problems.append("entity \(name): index (\(index.joined(separator: ", "))): '\(column)' is not a stored attribute")
            }
        }
        if Set(indexes).count != indexes.count { problems.append("entity \(name): an index is declared twice") }
        for tombstone in tombstoneAttributes where attribute(named: tombstone) == nil {
            problems.append("entity \(name): tombstone attribute '\(tombstone)' is not declared")
        }
        let stored = Set(attributes.map(\.name))
        for derived in derivedAttributes {
            if let problem = SQLIdentifier.attributeProblem(with: derived.name) {
                problems.append("entity \(name): derived attribute: \(problem)")
            }
            if let problem = Self.reservedColumnProblem(derived.name) { problems.append("entity \(name): derived \(problem)") }
            if stored.contains(derived.name) || !seen.insert(derived.name.lowercased()).inserted {
                problems.append("entity \(name): derived attribute '\(derived.name)' has the name of another attribute")
            }
            for problem in derived.expression.problems(types: Dictionary(attributes.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })) {
                problems.append("entity \(name): derived attribute '\(derived.name)': \(problem)")
            }
        }
        return problems
    }
}
