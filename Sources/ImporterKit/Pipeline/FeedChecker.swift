/// What a feed would import, found without a store (`importer check`).
public struct FeedCheck: Sendable {
    public var source: String
    public var feed: String
    public var format: FeedFormat
    public var entity: String
    public var records = 0
    public var mapped = 0
    public var rejected = 0
    /// The attributes the feed supplies (the others are left untouched on existing records).
    public var supplied: [String] = []
}

/// Reads and maps feeds exactly as an import does, writing nothing.
public struct FeedChecker {
    public let model: Model

    public init(model: Model) {
        self.model = model
    }

    /// Checks one feed; `onReject` receives each rejected record with its location.
    public func check(_ input: FeedInput, onReject: (Reject) throws -> Void) throws -> FeedCheck {
        guard let entity = model.entity(named: input.mapping.entity) else {
            throw ModelError.invalid("feed mapping \(input.mapping.name) names unknown entity '\(input.mapping.entity)'")
        }
        let source = try ByteSource(path: input.path)
        let reader = try FeedReaders.make(for: input.mapping, source: source)
        var mapper = try RecordMapper(entity: entity, mapping: input.mapping)
        let header = try reader.open(requesting: mapper.requestedFields)
        try mapper.configure(header: header, sourceName: source.name)
        var result = FeedCheck(source: source.name, feed: input.mapping.name, format: input.mapping.format, entity: entity.name)
        result.supplied = mapper.columns.map { entity.attributes[$0].name }
        var batch = mapper.makeBatch(capacity: 1024)
        var record = RawRecord(slotCount: mapper.requestedFields.count)
        while try reader.next(into: &record) {
            result.records += 1
            if let reject = mapper.map(record, into: &batch) {
                result.rejected += 1
                try onReject(reject)
            } else {
                result.mapped += 1
            }
            if batch.count >= 1024 { batch.removeAll() }
        }
        return result
    }
}
