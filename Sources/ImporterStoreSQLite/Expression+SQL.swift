import CSQLite
import Foundation
import ImporterModel

/// Model expressions rendered in SQLite's dialect (derived attributes, view aggregates).
extension ImporterModel.Expression {
    /// The SQL for the expression; `column` renders an attribute reference.
    public func sql(_ column: (String) -> String = { SQLIdentifier.quoted($0) }) -> String {
        switch self {
        case .attribute(let name):
            return column(name)
        case .literal(let value):
            return Self.literal(value)
        case .function(let function, let arguments):
            let rendered = arguments.map { $0.sql(column) }
            switch function {
            case .year: return "CAST(substr(\(rendered[0]), 1, 4) AS INTEGER)"
            case .month: return "CAST(substr(\(rendered[0]), 6, 2) AS INTEGER)"
            case .date: return "substr(\(rendered[0]), 1, 10)"
            default: return "\(function.rawValue)(\(rendered.joined(separator: ", ")))"
            }
        case .binary(let op, let lhs, let rhs):
            return "(\(lhs.sql(column)) \(op.rawValue) \(rhs.sql(column)))"
        case .not(let e):
            return "(NOT \(e.sql(column)))"
        case .isNull(let e):
            return "(\(e.sql(column)) IS NULL)"
        case .when(let branches, let otherwise):
            var text = "(CASE"
            for branch in branches { text += " WHEN \(branch.condition.sql(column)) THEN \(branch.value.sql(column))" }
            if let otherwise { text += " ELSE \(otherwise.sql(column))" }
            return text + " END)"
        }
    }

    /// A value as an SQL literal (text quoted with doubled quotes).
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): v.isFinite ? "\(v)" : "NULL"
        case .text(let v): "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}
