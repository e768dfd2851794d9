/// Which end of an attribute's values.
public enum Extreme: String, Sendable, CaseIterable {
    case max, min
}

/// A value of a source's URL computed from the store (`url-values:` in a model file): `{name}` in
/// the URL becomes the largest (or smallest) value of `attribute` among the mapping entity's
/// records — an incremental cursor kept in the data itself, so it cannot drift from what is
/// stored — or `initial` while no record holds one.
///
/// Invariant: a run fetching such a URL checks, inside its write transaction, that the value is
/// still the one it fetched with (another run may have imported in between).
public struct URLValue: Sendable, Equatable {
    public var name: String
    public var extreme: Extreme
    public var attribute: String
    public var initial: String?
    public var format: Format
    /// A look-back: the URL gets the cursor less this (plus it, for `min`).
    public var lag: URLValueLag?

    /// How the stored value is written into the URL.
    public enum Format: String, Sendable, CaseIterable {
        /// As the store holds it (dates `YYYY-MM-DD`, datetimes `YYYY-MM-DD hh:mm:ss`, numbers).
        case stored
        /// The date part only: `YYYY-MM-DD`.
        case date
        /// ISO 8601 with a `T`: `YYYY-MM-DDThh:mm:ss`.
        case iso8601
    }

    public init(name: String, extreme: Extreme, attribute: String, initial: String? = nil, format: Format = .stored, lag: URLValueLag? = nil) {
        self.name = name
        self.extreme = extreme
        self.attribute = attribute
        self.initial = initial
        self.format = format
        self.lag = lag
    }

    /// `value` written as the URL takes it; nil for null.
    public func text(of value: Value) -> String? {
        guard !value.isNull else { return nil }
        let stored = value.description
        switch format {
        case .stored: return stored
        case .date: return String(stored.prefix(10))
        case .iso8601: return stored.count > 10 ? stored.replacingOccurrences(of: " ", with: "T") : stored
        }
    }

    /// The names in braces in `template` (`{since}`), in order.
    public static func placeholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open) ..< close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
