import Foundation

/// A small, closed expression language for derived attributes and view groups.
///
/// Expressions are data (a model file declares them), so they are an AST rendered to SQL by this
/// type: attribute names become quoted identifiers (or the caller's column expressions, so the same
/// expression reads an entity row or a history image), literals become SQL literals, and only the
/// functions and operators listed here exist. A model can never inject SQL.
public indirect enum Expression: Sendable, Equatable, Hashable, Codable {
    case attribute(String)
    case literal(Value)
    case function(Function, [Expression])
    case binary(BinaryOperator, Expression, Expression)
    case not(Expression)
    case isNull(Expression)
    /// `CASE WHEN c1 THEN v1 ... ELSE otherwise END`.
    case when([Branch], otherwise: Expression?)

    public struct Branch: Sendable, Equatable, Hashable, Codable {
        public var condition: Expression
        public var value: Expression
        public init(_ condition: Expression, _ value: Expression) {
            self.condition = condition
            self.value = value
        }
    }

    public enum Function: String, Sendable, CaseIterable, Codable {
        /// The year of a date or datetime, as an integer.
        case year
        /// The month (1-12) of a date or datetime.
        case month
        /// The date part (`YYYY-MM-DD`) of a datetime.
        case date
        case abs, round, floor, lower, upper, coalesce, length

        var arity: ClosedRange<Int> {
            switch self {
            case .round: 1...2
            case .coalesce: 1...8
            default: 1...1
            }
        }
    }

    public enum BinaryOperator: String, Sendable, CaseIterable, Codable {
        case add = "+", subtract = "-", multiply = "*", divide = "/"
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case and = "AND", or = "OR", concatenate = "||"
    }

    /// The attributes the expression reads.
    public var attributes: Set<String> {
        switch self {
        case .attribute(let name): [name]
        case .literal: []
        case .function(_, let arguments): arguments.reduce(into: Set()) { $0.formUnion($1.attributes) }
        case .binary(_, let lhs, let rhs): lhs.attributes.union(rhs.attributes)
        case .not(let e), .isNull(let e): e.attributes
        case .when(let branches, let otherwise):
            branches.reduce(into: otherwise?.attributes ?? []) { $0.formUnion($1.condition.attributes.union($1.value.attributes)) }
        }
    }

    /// Problems with the expression for an entity with these attribute names (names and arities
    /// only; `problems(types:)` also checks what the date functions read).
    public func problems(attributes known: Set<String>) -> [String] {
        problems(known, types: nil)
    }

    /// Problems with the expression for an entity with these attributes and their types: unknown
    /// attributes, wrong arities, and `year`, `month` or `date` of a value that is not a date or
    /// datetime (`date(count)` would return digits, not a date).
    public func problems(types: [String: AttributeType]) -> [String] {
        problems(Set(types.keys), types: types)
    }

    private func problems(_ known: Set<String>, types: [String: AttributeType]?) -> [String] {
        switch self {
        case .attribute(let name):
            return known.contains(name) ? [] : ["unknown attribute '\(name)'"]
        case .literal:
            return []
        case .function(let function, let arguments):
            var problems = arguments.flatMap { $0.problems(known, types: types) }
            if !function.arity.contains(arguments.count) {
                problems.append("\(function.rawValue)() takes \(function.arity.lowerBound == function.arity.upperBound ? "\(function.arity.lowerBound)" : "\(function.arity.lowerBound) to \(function.arity.upperBound)") argument(s), not \(arguments.count)")
            }
            if let types, function.readsDate, let argument = arguments.first, let type = argument.type(in: types), type != .date, type != .datetime {
                let what = if case .attribute(let name) = argument { "attribute '\(name)' is \(type.rawValue)" } else { "its argument is \(type.rawValue)" }
                problems.append("\(function.rawValue)() reads a date or datetime, but \(what)")
            }
            return problems
        case .binary(_, let lhs, let rhs):
            return lhs.problems(known, types: types) + rhs.problems(known, types: types)
        case .not(let e), .isNull(let e):
            return e.problems(known, types: types)
        case .when(let branches, let otherwise):
            return branches.flatMap { $0.condition.problems(known, types: types) + $0.value.problems(known, types: types) }
                + (otherwise?.problems(known, types: types) ?? [])
        }
    }

    /// The type of the expression's value for attributes of these types, when it can be told
    /// (nil for NULL and unknown attributes).
    public func type(in types: [String: AttributeType]) -> AttributeType? {
        switch self {
        case .attribute(let name): return types[name]
        case .literal(.integer): return .integer
        case .literal(.real): return .real
        case .literal(.text): return .text
        case .literal(.null): return nil
        case .function(let function, let arguments):
            switch function {
            case .year, .month, .length: return .integer
            case .date: return .date
            case .lower, .upper: return .text
            case .abs, .round, .floor: return arguments.first?.type(in: types)
            case .coalesce: return arguments.lazy.compactMap { $0.type(in: types) }.first
            }
        case .binary(let op, let lhs, let rhs):
            switch op {
            case .concatenate: return .text
            case .add, .subtract, .multiply, .divide:
                return lhs.type(in: types) == .integer && rhs.type(in: types) == .integer && op != .divide ? .integer : .real
            default: return .boolean
            }
        case .not, .isNull: return .boolean
        case .when(let branches, let otherwise):
            return (branches.map(\.value) + (otherwise.map { [$0] } ?? [])).lazy.compactMap { $0.type(in: types) }.first
        }
    }
}

extension Expression.Function {
    /// Whether the function reads a date or datetime (stored `YYYY-MM-DD…` text).
    var readsDate: Bool { self == .year || self == .month || self == .date }
}
