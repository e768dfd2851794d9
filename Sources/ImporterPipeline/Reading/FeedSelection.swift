import Foundation
import ImporterFetch
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
    /// The limits of fetching the feeds given as URLs.
    public var fetchLimits = FetchLimits()

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
            let wanted = format ?? FeedFormat.guess(fromPath: Self.url(path)?.path ?? path)
            let candidates = model.feeds.filter { $0.format == wanted || (wanted == .json && $0.format == .nasaColumnar) }
            guard candidates.count == 1, let only = candidates.first else {
                throw ModelError.ambiguousMapping(path: path, candidates: (candidates.isEmpty ? model.feeds : candidates).map(\.name))
            }
            chosen = [only]
        }
        return chosen.map { mapping in
            let mapping = format.map(mapping.reading) ?? mapping
            guard let url = Self.url(path) else { return FeedInput(path: path, mapping: mapping) }
            return input(url, mapping)
        }
    }

    /// The inputs of a run given no feed: the URL of each named mapping (each must have one), or
    /// of every mapping that has one when none is named.
    public func inputsFromMappingURLs() throws(ModelError) -> [FeedInput] {
        var chosen: [FeedMapping] = []
        for name in mappings {
            guard let named = model.feed(named: name) else { throw ModelError.unknownFeed(name, known: model.feeds.map(\.name)) }
            guard named.source != nil else { throw ModelError.invalid("feed mapping '\(name)' has no 'url': give the feeds to read") }
            chosen.append(named)
        }
        if mappings.isEmpty { chosen = model.feeds.filter { $0.source != nil } }
        guard !chosen.isEmpty else { throw ModelError.invalid("no feed given, and no feed mapping of the model has a 'url'") }
        return try chosen.map { mapping throws(ModelError) in
            guard let source = mapping.source, let url = Self.url(of: source) else { throw ModelError.invalid("feed mapping '\(mapping.name)': its 'url' is not an http(s) URL") }
            return input(url, format.map(mapping.reading) ?? mapping)
        }
    }

    /// The input fetching `url` for `mapping`: the mapping's headers go with it when the URL is on
    /// the mapping's own origin (its secrets go to no other host).
    private func input(_ url: URL, _ mapping: FeedMapping) -> FeedInput {
        var request = FetchRequest(url: url)
        request.limits = fetchLimits
        if let source = mapping.source, let own = Self.url(of: source), own.host?.lowercased() == url.host?.lowercased(), own.scheme == url.scheme {
            let secret = { (header: FeedSource.Header) -> (String, SecretValue)? in
                if let variable = header.environment { return (header.name, .environment(variable)) }
                return header.file.map { (header.name, .file($0)) }
            }
            request.headers = source.headers.compactMap(secret)
            request.parameters = source.parameters.compactMap(secret)
        }
        return FeedInput(request: request, mapping: mapping)
    }

    /// A mapping's own URL, its `{name}` placeholders kept as percent-encoded braces for
    /// `URLTemplate` to fill.
    static func url(of source: FeedSource) -> URL? {
        url(source.values.reduce(source.url) { text, value in
            text.replacingOccurrences(of: "{\(value.name)}", with: URLTemplate.marker(value.name))
        })
    }

    /// `argument` as an http or https URL, or nil when it names a file.
    public static func url(_ argument: String) -> URL? {
        let lowered = argument.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: argument), url.host != nil else { return nil }
        return url
    }
}
