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

    /// Problems with the expression for an entity with these attribute names.
    public func problems(attributes known: Set<String>) -> [String] {
        switch self {
        case .attribute(let name):
            return known.contains(name) ? [] : ["unknown attribute '\(name)'"]
        case .literal:
            return []
        case .function(let function, let arguments):
            var problems = arguments.flatMap { $0.problems(attributes: known) }
            if !function.arity.contains(arguments.count) {
                problems.append("\(function.rawValue)() takes \(function.arity.lowerBound == function.arity.upperBound ? "\(function.arity.lowerBound)" : "\(function.arity.lowerBound) to \(function.arity.upperBound)") argument(s), not \(arguments.count)")
            }
            return problems
        case .binary(_, let lhs, let rhs):
            return lhs.problems(attributes: known) + rhs.problems(attributes: known)
        case .not(let e), .isNull(let e):
            return e.problems(attributes: known)
        case .when(let branches, let otherwise):
            return branches.flatMap { $0.condition.problems(attributes: known) + $0.value.problems(attributes: known) }
                + (otherwise?.problems(attributes: known) ?? [])
        }
    }
}
