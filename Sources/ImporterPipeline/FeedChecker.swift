import Foundation
import ImporterModel

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
        let feed = try MappedFeed(input, entity: entity)
        var result = FeedCheck(source: feed.source.name, feed: input.mapping.name, format: input.mapping.format, entity: entity.name)
        result.supplied = feed.mapper.columns.map { entity.attributes[$0].name }
        try feed.read(batchSize: 1024) { reject in
            result.rejected += 1
            try onReject(reject)
        } onBatch: { batch in
            result.mapped += batch.count
        }
        result.records = feed.records
        return result
    }
}
