/// An attribute computed from other attributes of the same record (a year from a date, a
/// hemisphere from coordinates). Derived attributes are not stored; views group and aggregate
/// over them as over stored attributes.
public struct DerivedAttribute: Sendable, Equatable, Codable {
    public var name: String
    public var type: AttributeType
    public var expression: Expression
    public var documentation: String?

    public init(name: String, type: AttributeType, expression: Expression, documentation: String? = nil) {
        self.name = name
        self.type = type
        self.expression = expression
        self.documentation = documentation
    }
}

/// One aggregate column of a derived view.
public struct Aggregate: Sendable, Equatable, Codable {
    public enum Function: String, Sendable, CaseIterable, Codable {
        /// `count` of records (no attribute) or of records where the attribute is not null.
        case count
        /// Sum of the non-null values; 0.0 when there are none (SQL `total`).
        case sum
        case min, max
        /// Average of the non-null values; null when there are none.
        case avg
    }

    /// The column name in the view's table.
    public var name: String
    public var function: Function
    /// The attribute (stored or derived) aggregated; nil only for `count` of records.
    public var attribute: String?

    public init(name: String, function: Function, attribute: String? = nil) {
        self.name = name
        self.function = function
        self.attribute = attribute
    }
}

/// A table in the store maintained from history: records of one entity grouped by some of their
/// attributes (stored or derived), with aggregates per group. A view is also a consumer: its token
/// is saved in the same SQLite transaction as its rows.
public struct ViewDefinition: Sendable, Equatable, Codable {
    /// The view's name, which is also its table's name and its consumer's name.
    public var name: String
    public var entity: String
    /// The attributes (stored or derived) whose values form a group, in column order.
    public var groupBy: [String]
    public var aggregates: [Aggregate]
    public var documentation: String?

    public init(name: String, entity: String, groupBy: [String], aggregates: [Aggregate], documentation: String? = nil) {
        self.name = name
        self.entity = entity
        self.groupBy = groupBy
        self.aggregates = aggregates
        self.documentation = documentation
    }
}

extension ViewDefinition {
    /// Every problem with the view for its entity (nil when the entity does not exist).
    public func problems(entity: EntityDescription?) -> [String] {
        var problems: [String] = []
        if let problem = SQLIdentifier.problem(with: name, limit: SQLIdentifier.Limit.view) { problems.append("view: \(problem)") }
        if SQLIdentifier.isReserved(name) { problems.append("view \(name): the name uses a reserved prefix (importer_, sqlite_)") }
        guard let entity else { return problems + ["view \(name): entity '\(self.entity)' is not declared"] }
        if groupBy.isEmpty { problems.append("view \(name): group by at least one attribute") }
        if aggregates.isEmpty { problems.append("view \(name): declare at least one aggregate") }
        var columns = Set<String>()
        for group in groupBy {
            if entity.expression(for: group) == nil { problems.append("view \(name): group attribute '\(group)' is not an attribute of \(entity.name)") }
            if !columns.insert(group.lowercased()).inserted { problems.append("view \(name): column '\(group)' appears twice") }
        }
        for aggregate in aggregates {
            if let problem = SQLIdentifier.problem(with: aggregate.name, limit: SQLIdentifier.Limit.aggregate) { problems.append("view \(name): aggregate: \(problem)") }
            if aggregate.name.lowercased().hasPrefix("importer_") { problems.append("view \(name): aggregate '\(aggregate.name)' uses the reserved prefix importer_") }
            if !columns.insert(aggregate.name.lowercased()).inserted { problems.append("view \(name): column '\(aggregate.name)' appears twice") }
            if let attribute = aggregate.attribute {
                if entity.expression(for: attribute) == nil {
                    problems.append("view \(name): aggregate '\(aggregate.name)' reads '\(attribute)', not an attribute of \(entity.name)")
                } else if [.sum, .avg].contains(aggregate.function), let type = entity.type(of: attribute), ![.integer, .real, .boolean].contains(type) {
                    // Text has no sum both backends agree on (SQLite reads a number's prefix, PostgreSQL refuses it).
                    problems.append("view \(name): aggregate '\(aggregate.name)': \(aggregate.function.rawValue) needs a number, and '\(attribute)' is \(type.rawValue)")
                }
            } else if aggregate.function != .count {
                problems.append("view \(name): aggregate '\(aggregate.name)': \(aggregate.function.rawValue) needs an attribute")
            }
        }
        return problems
    }

    /// The stored attributes the view reads (directly or through derived attributes).
    public func storedAttributes(of entity: EntityDescription) -> Set<String> {
        var result = Set<String>()
        for name in groupBy + aggregates.compactMap(\.attribute) {
            result.formUnion(entity.expression(for: name)?.attributes ?? [])
        }
        return result
    }

    /// The stored attributes the view's groups read (directly or through derived attributes).
    public func groupedAttributes(of entity: EntityDescription) -> Set<String> {
        groupBy.reduce(into: Set<String>()) { $0.formUnion(entity.expression(for: $1)?.attributes ?? []) }
    }
}
