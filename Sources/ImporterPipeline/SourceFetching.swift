import Foundation
import ImporterFetch
import ImporterStore

/// The URL feeds of a run, fetched before its store transaction opens (so a slow or stalled server
/// never holds the store's write lock): conditionally, with the validators the store kept from
/// their last import, unless `refetch`.
///
/// A run whose feeds are all URLs that have not changed is not modified: it writes nothing. When
/// some changed, those that did not are fetched again in full: a run reads every feed it names,
/// so that `--sync` sees their records.
public struct SourceFetching {
    let store: Store
    let refetch: Bool
    /// Where bodies are kept while the run reads them: beside the store when it is a file.
    let spoolDirectory: String

    /// What the run will read.
    enum Prepared {
        /// Every feed is a URL whose source has not changed since its last import.
        case notModified([SourceFetch])
        /// The feeds to read (URL feeds point at their downloaded bodies) and what to record.
        case feeds([FeedInput], fetched: [SourceFetch])
    }

    func prepare(_ feeds: [FeedInput]) throws(FetchError) -> Prepared {
        guard feeds.contains(where: { $0.request != nil }) else { return .feeds(feeds, fetched: []) }
        var outcomes: [Int: FetchOutcome] = [:]
        for (index, feed) in feeds.enumerated() {
            guard var request = feed.request else { continue }
            request.validators = refetch ? nil : storedValidators(of: feed)
            outcomes[index] = try fetch(request)
        }
        let unchanged = outcomes.values.compactMap { if case .notModified(let fetch) = $0 { fetch } else { nil } }
        if outcomes.count == feeds.count, unchanged.count == feeds.count { return .notModified(unchanged) }
        var inputs = feeds
        var fetched: [SourceFetch] = []
        for index in outcomes.keys.sorted() {
            guard var request = feeds[index].request, var outcome = outcomes[index] else { continue }
            if case .notModified = outcome {
                request.validators = nil
                outcome = try fetch(request)
            }
            guard case .body(let body) = outcome else {
                throw FetchError.refused(url: RedactedURL.text(request.url), status: 304, firstBytes: "answered 'not modified' to an unconditional request")
            }
            inputs[index].path = body.file
            fetched.append(body.fetch)
        }
        return .feeds(inputs, fetched: fetched)
    }

    private func fetch(_ request: FetchRequest) throws(FetchError) -> FetchOutcome {
        try HTTPFetcher(request: request, spoolDirectory: spoolDirectory).fetchBlocking()
    }

    /// The validators kept from the last import of the feed's URL (none when the store cannot tell).
    private func storedValidators(of feed: FeedInput) -> SourceValidators? {
        guard let state = try? store.read({ (snapshot: StoreSnapshot) in try snapshot.sources.sourceState(url: feed.name) }) else { return nil }
        return SourceValidators(etag: state.etag, lastModified: state.lastModified, sha256: state.sha256)
    }

    /// Removes the downloaded bodies of `feeds`.
    public static func removeBodies(of feeds: [FeedInput]) {
        for feed in feeds where feed.request != nil && !feed.path.isEmpty { try? FileManager.default.removeItem(atPath: feed.path) }
    }
}

extension FeedInput {
    /// The feed with its URL's body downloaded in full (unconditionally) into `directory`, for
    /// commands that read a feed without a store (`check`); a file feed as it is. The caller
    /// removes the body (`SourceFetching.removeBodies`).
    public func downloaded(to directory: String = FileManager.default.temporaryDirectory.path) throws(FetchError) -> FeedInput {
        guard var request else { return self }
        request.validators = nil
        guard case .body(let body) = try HTTPFetcher(request: request, spoolDirectory: directory).fetchBlocking() else {
            throw FetchError.refused(url: name, status: 304, firstBytes: "answered 'not modified' to an unconditional request")
        }
        var input = self
        input.path = body.file
        return input
    }
}
