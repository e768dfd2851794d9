import ImporterModel

/// Model expressions rendered in a backend's dialect (derived attributes, view groups and
/// aggregates). Conditions (comparisons, AND/OR, NOT, IS NULL) and values are told apart, so a
/// dialect without SQLite's integer booleans still reads a condition as 1/0 and a value as a
/// condition.
extension ImporterModel.Expression {
    /// The SQL for the expression as a value; `column` renders an attribute reference.
    package func sql(_ dialect: any SQLDialect, column: (String) -> String) -> String {
        isCondition ? dialect.value(ofCondition: conditionSQL(dialect, column)) : valueSQL(dialect, column)
    }

    /// The SQL for the expression as a value, attributes as quoted column names.
    package func sql(_ dialect: any SQLDialect) -> String {
        sql(dialect) { dialect.quoted($0) }
    }

    /// Whether the expression is a condition rather than a value.
    private var isCondition: Bool {
        switch self {
        case .not, .isNull: true
        case .binary(let op, _, _): ![.add, .subtract, .multiply, .divide, .concatenate].contains(op)
        default: false
        }
    }

    private func conditionSQL(_ dialect: any SQLDialect, _ column: (String) -> String) -> String {
        switch self {
        case .binary(let op, let lhs, let rhs) where op == .and || op == .or:
            return "(\(lhs.asCondition(dialect, column)) \(op.rawValue) \(rhs.asCondition(dialect, column)))"
        case .binary(let op, let lhs, let rhs):
            return "(\(lhs.sql(dialect, column: column)) \(op.rawValue) \(rhs.sql(dialect, column: column)))"
        case .not(let e):
            return "(NOT \(e.asCondition(dialect, column)))"
        case .isNull(let e):
            return "(\(e.sql(dialect, column: column)) IS NULL)"
        default:
            return dialect.condition(ofValue: valueSQL(dialect, column))
        }
    }

    private func asCondition(_ dialect: any SQLDialect, _ column: (String) -> String) -> String {
        isCondition ? conditionSQL(dialect, column) : dialect.condition(ofValue: valueSQL(dialect, column))
    }

    private func valueSQL(_ dialect: any SQLDialect, _ column: (String) -> String) -> String {
        switch self {
        case .attribute(let name):
            return column(name)
        case .literal(let value):
            return Self.literal(value)
        case .function(let function, let arguments):
            return dialect.call(function, arguments.map { $0.sql(dialect, column: column) })
        case .binary(.divide, let lhs, let rhs):
            return dialect.divide(lhs.sql(dialect, column: column), rhs.sql(dialect, column: column))
        case .binary(let op, let lhs, let rhs):
            return "(\(lhs.sql(dialect, column: column)) \(op.rawValue) \(rhs.sql(dialect, column: column)))"
        case .when(let branches, let otherwise):
            var text = "(CASE"
            for branch in branches {
                text += " WHEN \(branch.condition.asCondition(dialect, column)) THEN \(branch.value.sql(dialect, column: column))"
            }
            if let otherwise { text += " ELSE \(otherwise.sql(dialect, column: column))" }
            return text + " END)"
        case .not, .isNull:
            return dialect.value(ofCondition: conditionSQL(dialect, column))
        }
    }

    /// A value as an SQL literal (text quoted with doubled quotes).
    package static func literal(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): v.isFinite ? "\(v)" : "NULL"
        case .text(let v): "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}
