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
    /// The record indices rejected (for a feed of children: their parents' records, which a bad child rejects).
    public var rejectedRecords: Set<Int> = []
    /// The attributes the feed supplies (the others are left untouched on existing records).
    public var supplied: [String] = []
    /// Per mapped field: in how many records it was present, null, repeated, and rejected.
    public var fields: [FieldReport] = []
    /// Fields the feed does not supply after all (absent from every record), and the like.
    public var warnings: [String] = []
    /// For a CSV feed: how it was read (delimiter, encoding, preamble…; `CSVDialect.summary`).
    public var dialect: String?

    /// How one mapped field fared across the feed's records.
    public struct FieldReport: Sendable, Equatable {
        public var field: String
        public var attributes: [String]
        public var present: Int
        public var null: Int
        public var repeated: Int
        public var rejected: Int
    }
}

/// Reads and maps feeds exactly as an import does, writing nothing.
public struct FeedChecker {
    public let model: Model

    public init(model: Model) {
        self.model = model
    }

    /// Checks one feed; `onReject` receives each rejected record with its location.
    /// `rejectedParents`: for a mapping of children, the records its parents' check rejected.
    public func check(_ input: FeedInput, rejectedParents: Set<Int> = [], onReject: (Reject) throws -> Void) throws -> FeedCheck {
        guard let entity = model.entity(named: input.mapping.entity) else {
            throw ModelError.invalid("feed mapping \(input.mapping.name) names unknown entity '\(input.mapping.entity)'")
        }
        let feed = try MappedFeed(input, entity: entity)
        feed.collectsFieldCounts = true
        feed.rejectedParents = rejectedParents
        var result = FeedCheck(source: feed.source.name, feed: input.mapping.name, format: input.mapping.format, entity: entity.name)
        var rejectedByAttribute: [String: Int] = [:]
        try feed.read(batchSize: 1024) { reject in
            result.rejected += 1
            if let index = reject.location.recordIndex { result.rejectedRecords.insert(index) }
            rejectedByAttribute[reject.attribute ?? "", default: 0] += 1
            try onReject(reject)
        } onBatch: { batch in
            result.mapped += batch.count
        }
        result.records = feed.records
        result.supplied = feed.mapper.columns.map { entity.attributes[$0].name }
        result.warnings = feed.warnings + feed.unmapped.map { "\(feed.source.name): " + MappedFeed.describe($0, mapping: input.mapping.name) }
        result.dialect = feed.dialect?.summary
        result.fields = feed.fieldCounts.enumerated().map { slot, count in
            let attributes = feed.mapper.attributes(fedBy: slot)
            return FeedCheck.FieldReport(field: count.field, attributes: attributes, present: count.present, null: count.null,
                                         repeated: count.repeated, rejected: attributes.reduce(0) { $0 + (rejectedByAttribute[$1] ?? 0) })
        }
        return result
    }
}
