/// What a model says about how an attribute came to be, for `importer migrate` (Core Data's
/// renaming identifier, and the value existing records take): `renamed-from:` and `default:` on
/// the attribute in the model file. Kept beside the entities, not in them: a store registers an
/// entity's shape, not its past.
public struct AttributeEvolution: Sendable, Equatable {
    public var entity: String
    public var attribute: String
    /// The attribute's name in the store it migrates (`renamed-from:`).
    public var renamedFrom: String?
    /// The value stored records take when the attribute is added (`default:`), as the model file
    /// writes it; read with the attribute's type (`defaultValue(for:)`).
    public var defaultText: String?
    /// Or what each stored record's value is computed from (`default: {expression: …}`): an
    /// expression over the entity's other attributes.
    public var defaultExpression: Expression?

    public init(entity: String, attribute: String, renamedFrom: String? = nil, defaultText: String? = nil) {
        self.entity = entity
        self.attribute = attribute
        self.renamedFrom = renamedFrom
        self.defaultText = defaultText
    }

    /// What to do with a stored value that does not convert when the attribute is retyped
    /// (`retype-invalid:`): nil refuses the migration, naming the records.
    public var invalid: InvalidValues?

    /// `retype-invalid: null` stores null instead; `default` stores the attribute's `default:`.
    public enum InvalidValues: String, Sendable, Equatable, CaseIterable {
        case null
        case `default`
    }

    /// The default as a value of `type`: nil when there is none or it does not read as one.
    public func defaultValue(for type: AttributeType) -> Value? {
        defaultText.flatMap { Self.value(of: $0, as: type) }
    }

    /// `text` read as a value of `type`, as a model file's value is read (a number, `true`/`false`,
    /// `1`/`0`, `yes`/`no`, a date or date and time in ISO 8601): nil when it does not read as one.
    public static func value(of text: String, as type: AttributeType) -> Value? {
        switch type {
        case .text: return .text(text)
        case .integer: return Int64(text).map(Value.integer)
        case .real: return Double(text).flatMap { $0.isFinite ? Value.real($0) : nil }
        case .boolean:
            switch text.lowercased() {
            case "true", "1", "yes": return .integer(1)
            case "false", "0", "no": return .integer(0)
            default: return nil
            }
        case .date: return Self.canonical(text, DateTimeFormat.canonicalDate, includeTime: false).map(Value.text)
        case .datetime: return Self.canonical(text, DateTimeFormat.canonicalDateTime, includeTime: true).map(Value.text)
        }
    }

    /// `text` read with `pattern` (UTC) and written canonically, or nil.
    private static func canonical(_ text: String, _ pattern: String, includeTime: Bool) -> String? {
        guard let format = try? DateTimeFormat(pattern: pattern) else { return nil }
        var text = text
        var output: [UInt8] = []
        let parsed = text.withUTF8 { bytes in bytes.baseAddress.map { format.parse($0, count: bytes.count, includeTime: includeTime, into: &output) } ?? false }
        return parsed ? String(decoding: output, as: UTF8.self) : nil
    }
}

extension Model {
    /// What is wrong with `expression` as `attribute`'s default: an attribute it reads that the
    /// entity does not have (or the attribute itself), a value of another type.
    static func expressionProblems(_ expression: Expression, of attribute: AttributeDescription, in entity: EntityDescription) -> [String] {
        let subject = "entity \(entity.name): attribute \(attribute.name): default expression '\(expression.text)'"
        let types = Dictionary(entity.attributes.filter { $0.name != attribute.name }.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        var problems = expression.problems(types: types).map { "\(subject): \($0)" }
        if expression.attributes.contains(attribute.name) { problems.append("\(subject) reads the attribute it fills") }
        if let type = expression.type(in: types), type != attribute.type, !(type == .integer && attribute.type == .real) {
            problems.append("\(subject) gives \(type.rawValue) values, not \(attribute.type.rawValue)")
        }
        return problems
    }

    /// The evolution noted for `attribute` of `entity`, if any.
    public func evolution(of attribute: String, in entity: String) -> AttributeEvolution? {
        evolutions.first { $0.entity == entity && $0.attribute == attribute }
    }

    /// Problems with the evolutions: a rename from a name the entity still has, a default that
    /// does not read as the attribute's type.
    func evolutionProblems() -> [String] {
        var problems: [String] = []
        for (name, old) in renamedEntities.sorted(by: { $0.key < $1.key }) where entity(named: old) != nil {
            problems.append("entity \(name) is renamed from '\(old)', which the model still declares")
        }
        for name in removedEntities where entity(named: name) != nil || renamedEntities.values.contains(name) {
            problems.append("removed-entities: \(name) is removed, but the model still declares it (or renames it)")
        }
        for evolution in evolutions {
            guard let entity = entity(named: evolution.entity), let attribute = entity.attribute(named: evolution.attribute) else { continue }
            if let old = evolution.renamedFrom, entity.attribute(named: old) != nil {
                problems.append("entity \(entity.name): attribute \(attribute.name) is renamed from '\(old)', which the entity still has")
            }
            if let text = evolution.defaultText, evolution.defaultValue(for: attribute.type) == nil {
                problems.append("entity \(entity.name): attribute \(attribute.name): default '\(text)' does not read as \(attribute.type.rawValue)")
            }
            if evolution.invalid == .default, evolution.defaultText == nil {
                problems.append("entity \(entity.name): attribute \(attribute.name): retype-invalid: default needs a default: value (a constant)")
            }
            if let expression = evolution.defaultExpression {
                problems += Self.expressionProblems(expression, of: attribute, in: entity)
            }
        }
        return problems
    }
}
