/// A key attribute whose value the source moves a little between snapshots (NASA re-times an event
/// by a second while its timestamp is the only key). Under `--sync`, a stored record the feeds no
/// longer hold and a new record whose key lies within `tolerance` of it are the same record, re-keyed:
/// one update of the stored record (its identity and history kept, the key among the changed
/// attributes), not a delete plus an insert. A pair is taken only when it is unambiguous: each side
/// has exactly one candidate within tolerance that agrees on `agree` and on the other key
/// attributes.
public struct KeyDrift: Sendable, Equatable, Codable {
    /// The key attribute that may move.
    public var attribute: String
    /// The largest move: seconds for a date or datetime key, an absolute difference for a number.
    public var tolerance: Double
    /// Attributes that must be equal for two records to pair.
    public var agree: [String]
    /// When drift is reconciled: under `--sync` only (the default), or in every run.
    public var on: When

    /// `sync`: a snapshot says what disappeared, so a pair is evidence. `always`: an incremental
    /// feed's new record is also paired with a stored record the run does not otherwise write —
    /// which can re-key a distinct record that merely happened to lie within the tolerance.
    public enum When: String, Sendable, Codable, CaseIterable {
        case sync, always
    }

    public init(attribute: String, tolerance: Double, agree: [String] = [], on: When = .sync) {
        self.attribute = attribute
        self.tolerance = tolerance
        self.agree = agree
        self.on = on
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attribute = try container.decode(String.self, forKey: .attribute)
        tolerance = try container.decode(Double.self, forKey: .tolerance)
        agree = try container.decodeIfPresent([String].self, forKey: .agree) ?? []
        on = try container.decodeIfPresent(When.self, forKey: .on) ?? .sync
    }

    /// A tolerance as a model file writes it: `1s`, `2m`, `1h`, `1d` (date and time keys), or a
    /// plain number.
    public static func tolerance(parsing text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last, let factor = units[unit], let value = Double(text.dropLast()), value > 0 { return value * factor }
        guard let value = Double(text), value > 0 else { return nil }
        return value
    }

    /// The tolerance written back (`1s` for a date or time key).
    public func toleranceText(for type: AttributeType) -> String {
        guard type == .date || type == .datetime else { return tolerance == tolerance.rounded() ? String(Int(tolerance)) : String(tolerance) }
        for (unit, factor) in [("d", 86400.0), ("h", 3600), ("m", 60)] where tolerance >= factor && (tolerance / factor).rounded() == tolerance / factor {
            return "\(Int(tolerance / factor))\(unit)"
        }
        return tolerance == tolerance.rounded() ? "\(Int(tolerance))s" : "\(tolerance)s"
    }

    /// What is wrong with the rule on `entity` (empty when it is usable).
    public func problems(entity: EntityDescription) -> [String] {
        var problems: [String] = []
        let prefix = "entity \(entity.name): drift"
        if !entity.uniqueKey.contains(attribute) {
            problems.append("\(prefix): '\(attribute)' is not an attribute of the unique key")
        } else if let type = entity.attribute(named: attribute)?.type, ![.date, .datetime, .integer, .real].contains(type) {
            problems.append("\(prefix): '\(attribute)' is \(type.rawValue); only date, datetime, integer and real keys can drift")
        }
        if !(tolerance > 0) { problems.append("\(prefix): the tolerance must be more than 0") }
        for name in agree where entity.attribute(named: name) == nil {
            problems.append("\(prefix): agree attribute '\(name)' is not declared")
        }
        return problems
    }

    /// Stored values of an attribute of `type` that bound every value within the tolerance of
    /// `position` (a superset: for an index range scan), or nil for a type that cannot drift.
    public func storedRange(around position: Double, type: AttributeType) -> (Value, Value)? {
        let low = position - tolerance, high = position + tolerance
        switch type {
        case .integer: return (.integer(Int64(low.rounded(.down))), .integer(Int64(high.rounded(.up))))
        case .real: return (.real(low), .real(high))
        case .date, .datetime:
            return (.text(DateTimeFormat.storedUTC(secondsSinceEpoch: Int(low.rounded(.down)), dateOnly: type == .date)),
                    .text(DateTimeFormat.storedUTC(secondsSinceEpoch: Int(high.rounded(.up)), dateOnly: type == .date)))
        default: return nil
        }
    }

    /// A stored key value as a number: seconds since 1970 for a date or datetime (stored as UTC
    /// text, `YYYY-MM-DD[ hh:mm:ss]`), the value for a number; nil when it is neither.
    public static func position(of value: Value) -> Double? {
        switch value {
        case .integer(let n): return Double(n)
        case .real(let x): return x
        case .text(let text): return DateTimeFormat.secondsSinceEpoch(storedUTC: text)
        case .null: return nil
        }
    }
}
