import Foundation

/// The formats a feed can have. Each has a streaming reader (`Feeds/`).
public enum FeedFormat: String, Sendable, CaseIterable, Codable {
    /// The NASA/JPL SSD API shape: `{"signature", "count", "fields": [...], "data": [[...], ...]}`;
    /// fields are names in `fields`.
    case nasaColumnar = "nasa-columnar"
    /// An array of objects, at the document's root or at the JSON pointer `records`; fields are
    /// keys, or JSON pointers into the record (`/location/lat`).
    case json
    /// One JSON object per line; fields as for `json`.
    case ndjson
    /// Elements at the path `records` (`/fireballs/fireball`); fields are child elements
    /// (`date`, `location/lat`) or attributes (`@date`), with namespace prefixes from `namespaces`.
    case xml
    /// Comma-separated values with a header row; fields are header names.
    case csv

    /// The format a file name suggests (`.json`/`.geojson`, `.ndjson`/`.jsonl`, `.xml`, `.csv`,
    /// `.tsv`: tab-separated values, read as CSV with tabs).
    public static func guess(fromPath path: String) -> FeedFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") { return .ndjson }
        if lower.hasSuffix(".xml") { return .xml }
        if lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") { return .csv }
        if lower.hasSuffix(".json") || lower.hasSuffix(".geojson") { return .json }
        return nil
    }
}

/// How a sign is read for a number: from a separate direction field (`lat` + `lat-dir`) or from a
/// suffix glued to the number (`"24.0S"`).
public struct SignRule: Sendable, Equatable {
    /// The field that holds the direction, or nil when the direction is a suffix of the value.
    public var field: String?
    /// Markers that make the number negative (`S`, `W`).
    public var negative: [String]
    /// Markers that keep it positive (`N`, `E`).
    public var positive: [String]

    public init(field: String? = nil, negative: [String], positive: [String]) {
        self.field = field
        self.negative = negative
        self.positive = positive
    }
}

/// What a mapping does with a field that has several values in one record (a repeated XML
/// element, a JSON array of values where one value is mapped).
///
/// Never silent: the default, `reject`, rejects the record naming the field and its count, so a
/// repeated field is only cut or combined when the mapping says how.
public enum RepeatedValues: Sendable, Equatable {
    /// The record is rejected ("field 'x' has 2 values"): the default.
    case reject
    /// The first value is kept.
    case first
    /// The last value is kept.
    case last
    /// Every value, as a JSON array (a text attribute).
    case all
    /// Every distinct value, as a JSON array in a canonical order (a text attribute): the values
    /// compared as a set, so a re-ordered list is no change; a value met twice is kept once.
    case set
    /// Every non-null value's text, joined with the separator (a text attribute).
    case join(String)

    /// The word a model file uses (`repeated: first`).
    public var name: String {
        switch self {
        case .reject: "reject"
        case .first: "first"
        case .last: "last"
        case .all: "all"
        case .set: "set"
        case .join: "join"
        }
    }
}

/// How one attribute is fed: from which field, with which transforms.
///
/// Transforms are a closed set applied in a fixed order: `constant` (ignores the feed) or the
/// field's value (several values combined by `repeated`) → `trim` → `capture` (a regular
/// expression's first group) → `split` and `part` → `lookup` → `emptyIsNull` → `defaultValue`
/// for null → sign suffix removal → parsing by the attribute's type (numbers accept `+` and
/// exponents; dates and datetimes use `format` in `timeZone`) → `scale` → `offset` → `negate` →
/// sign. A value that a transform cannot take (no match, no such part, not in the table) rejects
/// the record, naming the transform.
public struct FieldMapping: Sendable, Equatable {
    public var attribute: String
    /// The field's name in the feed (for columnar JSON, a name in `fields`).
    public var field: String?
    public var trim = false
    public var emptyIsNull = false
    public var defaultValue: Value?
    public var constant: Value?
    public var scale: Double?
    public var sign: SignRule?
    /// A strftime-like pattern for date and datetime attributes (`%Y-%m-%d %H:%M:%S`).
    public var format: String?
    /// The zone of datetimes in the feed: `UTC` or an offset such as `+02:00`.
    public var timeZone: String?
    /// What several values of the field in one record become.
    public var repeated: RepeatedValues = .reject
    /// A regular expression (ICU syntax) the text must match; its first capture group (or the
    /// whole match, without groups) becomes the value: `/([^/]+)$` takes a URL's last segment.
    public var capture: String?
    /// Splits the text at this separator and keeps `part` (0-based; negative counts from the end):
    /// `"19.4 -155.2"` split `" "` part 1 is `-155.2`.
    public var split: String?
    public var part: Int?
    /// Replaces the text by the table's value for it (`{"M": mb, "W": mw}`); text not in the table
    /// rejects the record.
    public var lookup: [String: Value]?
    /// Added to a number after `scale`.
    public var offset: Double?
    /// Negates a number (depth from an elevation).
    public var negate = false

    /// How a number written for people is read (`format:` as a mapping of `thousands` and
    /// `decimal`), for integer and real attributes.
    public var numberFormat: NumberFormat?

    /// Whether the field's text goes through `capture`, `split` or `lookup`.
    public var transformsText: Bool { capture != nil || split != nil || lookup != nil }

    public init(attribute: String, field: String? = nil, trim: Bool = false, emptyIsNull: Bool = false,
                defaultValue: Value? = nil, constant: Value? = nil, scale: Double? = nil, sign: SignRule? = nil,
                format: String? = nil, timeZone: String? = nil) {
        self.attribute = attribute
        self.field = field
        self.trim = trim
        self.emptyIsNull = emptyIsNull
        self.defaultValue = defaultValue
        self.constant = constant
        self.scale = scale
        self.sign = sign
        self.format = format
        self.timeZone = timeZone
    }
}

/// How records of one feed shape become records of one entity.
public struct FeedMapping: Sendable, Equatable {
    public var name: String
    public var entity: String
    public var format: FeedFormat
    /// Where the records are: a JSON pointer to an array (`json`; the root when nil) or an element
    /// path (`xml`, required). Not used by the other formats.
    public var records: String?
    /// XML namespace prefixes used in `records` and field paths: prefix → namespace URI.
    public var namespaces: [String: String]
    public var fields: [FieldMapping]
    /// What to do with a record whose key an earlier record of the feed had.
    public var duplicates: DuplicateKeys = .last
    /// What to do with fields the records hold and no field mapping reads (`unmapped:`).
    public var unmapped: UnmappedFields = .warn
    /// Where the feed is fetched from when no feed is given on the command line (`url:`).
    public var source: FeedSource?
    /// How a CSV feed is written (`csv:`): not used by the other formats.
    public var csv = CSVDialect()
    /// The children it reads for relationships of its entity (`children:`).
    public var children: [ChildMapping] = []
    /// For a mapping `Model.childFeeds` derived: where its child records are in the parent's.
    public var childRecords: ChildRecords?
    /// The attribute whose range the feed covers (`sync: {scope: date}`): a `--sync` deletes only
    /// the stored records inside the window the run covers (`SyncWindow`).
    public var syncScope: String?
    /// The field that marks a record deleted upstream (`delete-marker:`).
    public var deleteMarker: DeleteMarker?
    /// Where an archived snapshot's time is in its file name (`timestamp-from:`).
    public var timestampFrom: FileNameTime?

    public init(name: String, entity: String, format: FeedFormat, records: String? = nil, namespaces: [String: String] = [:], fields: [FieldMapping]) {
        self.name = name
        self.entity = entity
        self.format = format
        self.records = records
        self.namespaces = namespaces
        self.fields = fields
    }

    /// The same mapping reading another format (the format of a feed given on the command line).
    public func reading(_ format: FeedFormat) -> FeedMapping {
        var copy = self
        copy.format = format
        return copy
    }
}

/// A complete model: entities, the feed mappings that fill them, and the derived views
/// maintained from their history.
public struct Model: Sendable, Equatable {
    public var entities: [EntityDescription]
    public var feeds: [FeedMapping]
    public var views: [ViewDefinition]
    /// The to-many relationships between entities (declared on the parent entity).
    public var relationships: [Relationship]
    /// How attributes came to be (`renamed-from:`, `default:`), for migrating a store.
    public var evolutions: [AttributeEvolution]
    /// Entities renamed (`renamed-from:` on the entity): the store's name of each, by its new name.
    public var renamedEntities: [String: String] = [:]
    /// Entities the store holds that the model removes (`removed-entities:`): their tables go,
    /// their history stays (a model that leaves an entity out otherwise leaves it as it is).
    public var removedEntities: [String] = []

    public init(entities: [EntityDescription], feeds: [FeedMapping], views: [ViewDefinition] = [], relationships: [Relationship] = [],
                evolutions: [AttributeEvolution] = []) {
        self.entities = entities
        self.feeds = feeds
        self.views = views
        self.relationships = relationships
        self.evolutions = evolutions
    }

    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    public func feed(named name: String) -> FeedMapping? {
        feeds.first { $0.name == name }
    }

    /// Reports every problem with the model; empty when it is valid.
    public func validate() -> [String] {
        var problems = entities.flatMap { $0.validate() }
        var tables = Set<String>()
        for entity in entities where !tables.insert(entity.tableName.lowercased()).inserted {
            problems.append("entity \(entity.name): table '\(entity.tableName)' is used by two entities")
        }
        for feed in feeds {
            guard let entity = entity(named: feed.entity) else {
                problems.append("feed \(feed.name): entity '\(feed.entity)' is not declared")
                continue
            }
            for field in feed.fields {
                guard let attribute = entity.attribute(named: field.attribute) else {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)' is not an attribute of \(entity.name)")
                    continue
                }
                if field.field == nil && field.constant == nil {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)' needs a field or a constant")
                }
                if field.scale != nil || field.sign != nil || field.offset != nil || field.negate, attribute.type != .real && attribute.type != .integer {
                    problems.append("feed \(feed.name): scale, offset, negate and sign apply to numbers, but '\(field.attribute)' is \(attribute.type.rawValue)")
                }
                problems += field.transformProblems().map { "feed \(feed.name): attribute '\(field.attribute)': \($0)" }
                if field.format != nil, attribute.type != .date && attribute.type != .datetime {
                    problems.append("feed \(feed.name): format applies to dates, but '\(field.attribute)' is \(attribute.type.rawValue)")
                }
                if let format = field.format, let problem = DateTimeFormat.problem(with: format) {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)': \(problem)")
                }
                switch field.repeated {
                case .all, .set, .join:
                    if attribute.type != .text {
                        problems.append("feed \(feed.name): repeated: \(field.repeated.name) stores text, but '\(field.attribute)' is \(attribute.type.rawValue)")
                    }
                default: break
                }
                if field.timeZone != nil, let format = field.format, format.hasPrefix("epoch-") {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)': zone does not apply to \(format) (epoch times are UTC); remove it")
                }
                if let zone = field.timeZone, LocalZone(zone) == nil {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)': time zone '\(zone)' is not UTC, ±hh:mm or an IANA name (Europe/Berlin)")
                }
            }
            for value in feed.source?.values ?? [] {
                guard let attribute = entity.attribute(named: value.attribute) else {
                    problems.append("feed \(feed.name): url-values '\(value.name)': '\(value.attribute)' is not an attribute of \(entity.name)")
                    continue
                }
                if let problem = value.lag?.problem(for: attribute.type) {
                    problems.append("feed \(feed.name): url-values '\(value.name)': lag: \(problem)")
                }
            }
            if let problem = feed.timestampFrom?.problem { problems.append("feed \(feed.name): timestamp-from: \(problem)") }
            if let scope = feed.syncScope {
                if let attribute = entity.attribute(named: scope) {
                    if !SyncWindow.canScope(attribute.type) {
                        problems.append("feed \(feed.name): sync: scope '\(scope)' is \(attribute.type.rawValue): a window needs a date, datetime, integer or real attribute")
                    }
                } else {
                    problems.append("feed \(feed.name): sync: scope '\(scope)' is not an attribute of \(entity.name)")
                }
                if entity.attribute(named: scope) != nil, !feed.fields.contains(where: { $0.attribute == scope }) {
                    problems.append("feed \(feed.name): sync: scope '\(scope)' is not mapped by a field of the feed (its records would be in no window)")
                }
            }
            for key in entity.uniqueKey where !feed.fields.contains(where: { $0.attribute == key }) {
                problems.append("feed \(feed.name): the unique key attribute '\(key)' of \(entity.name) is not mapped")
            }
        }
        problems += relationshipProblems()
        problems += evolutionProblems()
        var names = Set(entities.map { $0.tableName.lowercased() })
        for view in views {
            if !names.insert(view.name.lowercased()).inserted {
                problems.append("view \(view.name): the name is already used by a table or another view")
            }
            problems += view.problems(entity: entity(named: view.entity))
        }
        return problems
    }
}

extension FieldMapping {
    /// Problems with the text transforms: a regular expression that does not compile or has more
    /// than one group, a `part` without `split` (or the reverse), an empty separator.
    public func transformProblems() -> [String] {
        var problems: [String] = []
        if let capture {
            do {
                let regex = try NSRegularExpression(pattern: capture)
                if regex.numberOfCaptureGroups > 1 {
                    problems.append("capture '\(capture)' has \(regex.numberOfCaptureGroups) groups; give one (its text becomes the value) or none")
                }
            } catch {
                problems.append("capture '\(capture)' is not a regular expression")
            }
        }
        switch (split, part) {
        case (let separator?, _?) where separator.isEmpty: problems.append("split needs a non-empty separator")
        case (_?, nil): problems.append("split needs part (which piece to keep: 0 for the first, -1 for the last)")
        case (nil, _?): problems.append("part applies with split only")
        default: break
        }
        if field == nil && (transformsText || offset != nil || negate) && constant != nil {
            problems.append("transforms apply to a field's values, not to a constant")
        }
        return problems
    }
}
