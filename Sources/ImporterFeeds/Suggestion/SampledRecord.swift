import ImporterModel

/// One scalar value a sampler found in a feed, before any type is chosen.
public enum SampleScalar: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    /// A JSON number, as its token text.
    case number(String)
    /// A string (JSON), an element's text or an attribute's value (XML), a cell (CSV).
    case string(String)

    /// The value as text: what a key comparison and a sample comment use; nil for null.
    public var text: String? {
        switch self {
        case .null: nil
        case .bool(let flag): flag ? "true" : "false"
        case .number(let text), .string(let text): text
        }
    }
}

/// One field of one sampled record, addressed as a feed mapping addresses it.
public struct SampledField: Sendable, Equatable {
    /// The mapping's `field`: a key or JSON pointer, an XML element or attribute path, a CSV header.
    public var address: String
    /// The words an attribute name is made of, outermost first (`["properties", "mag"]`).
    public var words: [String]
    /// How many trailing `words` make the preferred short name (more are used on a collision).
    public var shortWords: Int
    /// The field's values in this record: more than one for a repeated element or a JSON array.
    public var values: [SampleScalar]
    /// For a JSON array of scalars: true (`values` are its elements).
    public var isArray = false
    /// For one element of a JSON array of scalars (`/geometry/coordinates/0`): its array's address.
    public var arrayAddress: String?

    public init(address: String, words: [String], shortWords: Int = 1, values: [SampleScalar],
                isArray: Bool = false, arrayAddress: String? = nil) {
        self.address = address
        self.words = words
        self.shortWords = max(1, min(shortWords, words.count))
        self.values = values
        self.isArray = isArray
        self.arrayAddress = arrayAddress
    }
}

/// What a sampler learned about a feed: where its records are, and the records it read.
public struct FeedSample: Sendable {
    public var format: FeedFormat
    /// The records path (`/features`, `/a:feed/a:entry`), nil for the root or a format without one.
    public var records: String?
    /// XML namespace prefixes used in `records` and the field addresses.
    public var namespaces: [String: String] = [:]
    /// The sampled records, each its fields in document order.
    public var recordFields: [[SampledField]] = []
    /// Parts of the feed the suggestion does not map (arrays of objects), for the notes.
    public var skipped: [String] = []
    /// The singular noun of a record (`feature`, `entry`), for a renamed `id`; nil when unknown.
    public var recordNoun: String?
    /// For a CSV feed: how it is written, as the sampler found it (delimiter, encoding).
    public var csv = CSVDialect()
    /// The records read past the sample (JSON, NDJSON and CSV are read to their end): how many,
    /// and per field address what they said of its type and presence (no values kept).
    public var tailRecords = 0
    public var tail: [String: FieldProfile] = [:]
    /// JSON: the arrays of objects inside the sampled records (candidate child entities), by
    /// member name in the order first met; each sampled record's elements are one sample of their
    /// own (`FeedSample` per parent), so a key is checked for uniqueness within each parent.
    public var children: [(name: String, parents: [FeedSample])] = []

    /// Counts a record read past the sample into `tail`.
    mutating func observeTail(_ fields: [SampledField]) {
        for field in fields {
            if tail[field.address] == nil { tail[field.address] = FieldProfile(field, order: tail.count, keepsValues: false) }
            tail[field.address]?.observe(field, record: tailRecords)
        }
        tailRecords += 1
    }

    public init(format: FeedFormat, records: String? = nil) {
        self.format = format
        self.records = records
    }
}
