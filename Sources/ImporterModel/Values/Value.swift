/// A value of an attribute as SQLite stores it: NULL, a 64-bit integer, a double, or UTF-8 text.
///
/// Booleans are stored as integers 0/1, dates and datetimes as canonical ISO-8601 text
/// (`YYYY-MM-DD`, `YYYY-MM-DD hh:mm:ss` in UTC).
public enum Value: Hashable, Sendable, CustomStringConvertible, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// SQL `IS` semantics: NULL equals NULL; an integer equals a real of the same value.
    public func isSame(as other: Value) -> Bool {
        switch (self, other) {
        case (.integer(let a), .real(let b)): return Double(a) == b
        case (.real(let a), .integer(let b)): return a == Double(b)
        default: return self == other
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .integer(let v): String(v)
        case .real(let v): v.formattedForReport
        case .text(let v): v
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }

    public var stringValue: String? {
        if case .text(let v) = self { v } else { nil }
    }
}

extension Double {
    /// The shortest decimal text that reads back as the same double, without a trailing `.0` for
    /// integral values (`2.4`, `758`, `1e-05`).
    package var formattedForReport: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return description
    }
}
