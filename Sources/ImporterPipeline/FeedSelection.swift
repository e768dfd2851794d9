import Foundation
import ImporterModel

/// Chooses the feed mappings (and format) for each feed given on the command line.
///
/// Order: the mappings named with `--mapping` (each feed is read by every one of them, in the
/// order given); else the model's only mapping; else the mapping whose format is the one given
/// with `--feed-format` or suggested by the file's extension. Several candidates, or none, is a
/// usage error naming `--mapping`. The format is `--feed-format` when given, else the mapping's.
public struct FeedSelection: Sendable {
    public var model: Model
    public var mappings: [String]
    public var format: FeedFormat?

    public init(model: Model, mappings: [String] = [], format: FeedFormat? = nil) {
        self.model = model
        self.mappings = mappings
        self.format = format
    }

    /// The inputs that read `path`: one per named mapping, or the one mapping that fits.
    public func inputs(for path: String) throws(ModelError) -> [FeedInput] {
        var chosen: [FeedMapping] = []
        if !mappings.isEmpty {
            for name in mappings {
                guard let named = model.feed(named: name) else { throw ModelError.unknownFeed(name, known: model.feeds.map(\.name)) }
                if !chosen.contains(where: { $0.name == name }) { chosen.append(named) }
            }
        } else if model.feeds.count == 1, let only = model.feeds.first {
            chosen = [only]
        } else {
            let wanted = format ?? FeedFormat.guess(fromPath: path)
            let candidates = model.feeds.filter { $0.format == wanted || (wanted == .json && $0.format == .nasaColumnar) }
            guard candidates.count == 1, let only = candidates.first else {
                throw ModelError.ambiguousMapping(path: path, candidates: (candidates.isEmpty ? model.feeds : candidates).map(\.name))
            }
            chosen = [only]
        }
        return chosen.map { FeedInput(path: path, mapping: format.map($0.reading) ?? $0) }
    }
}
