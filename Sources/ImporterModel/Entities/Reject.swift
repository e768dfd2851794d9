import ImporterSupport

/// A record that could not be mapped: where it is, which attribute, why, and the raw value.
///
/// A reject is a bad *record*, not a bad file: the rest of the feed is still readable.
public struct Reject: Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var entity: String
    public var attribute: String?
    public var reason: String
    public var rawValue: String?

    public init(location: SourceLocation, entity: String, attribute: String?, reason: String, rawValue: String?) {
        self.location = location
        self.entity = entity
        self.attribute = attribute
        self.reason = reason
        self.rawValue = rawValue
    }

    public var description: String {
        var text = "\(location): \(entity)"
        if let attribute { text += ".\(attribute)" }
        text += ": \(reason)"
        if let rawValue { text += " (value: \(rawValue))" }
        return text
    }
}

extension JSONWriter {
    /// A reject as the `--rejects` NDJSON line and the JSON reports write it.
    public mutating func writeReject(_ reject: Reject) {
        beginObject()
        field("source", reject.location.source)
        field("line", reject.location.line)
        field("column", reject.location.column)
        if let index = reject.location.recordIndex { field("record", index) }
        if let path = reject.location.path { field("field", path) }
        field("entity", reject.entity)
        if let attribute = reject.attribute { field("attribute", attribute) }
        field("reason", reject.reason)
        if let raw = reject.rawValue { field("value", raw) } else { key("value"); null() }
        endObject()
    }
}
