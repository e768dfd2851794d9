import Foundation
import ImporterModel

/// Chooses the feed mapping (and format) for each feed given on the command line.
///
/// Order: the mapping named with `--feed`; else the model's only mapping; else the mapping whose
/// format is the one given with `--feed-format` or suggested by the file's extension. The format
/// is `--feed-format` when given, else the mapping's.
public struct FeedSelection: Sendable {
    public var model: Model
    public var feedName: String?
    public var format: FeedFormat?

    public init(model: Model, feedName: String? = nil, format: FeedFormat? = nil) {
        self.model = model
        self.feedName = feedName
        self.format = format
    }

    public func input(for path: String) throws(ModelError) -> FeedInput {
        let mapping: FeedMapping
        if let feedName {
            guard let named = model.feed(named: feedName) else { throw ModelError.unknownFeed(feedName, known: model.feeds.map(\.name)) }
            mapping = named
        } else if model.feeds.count == 1, let only = model.feeds.first {
            mapping = only
        } else {
            let wanted = format ?? FeedFormat.guess(fromPath: path)
            let candidates = model.feeds.filter { $0.format == wanted || (wanted == .json && $0.format == .nasaColumnar) }
            guard let first = candidates.first else {
                throw ModelError.invalid("cannot tell which feed mapping reads \(path): give --feed (one of: \(model.feeds.map(\.name).joined(separator: ", ")))")
            }
            guard candidates.count == 1 else {
                throw ModelError.invalid("several feed mappings could read \(path) (\(candidates.map(\.name).joined(separator: ", "))): give --feed")
            }
            mapping = first
        }
        return FeedInput(path: path, mapping: format.map(mapping.reading) ?? mapping)
    }
}
