import Foundation
import ImporterFetch
import ImporterModel
import ImporterStore

/// The URL feeds of a run, fetched before its store transaction opens (so a slow or stalled server
/// never holds the store's write lock): conditionally, with the validators the store kept from
/// their last import, unless `refetch`; a paged source page by page (`PageWalk`), compared with
/// its last import by the hash of its pages.
///
/// A run whose feeds are all URLs that have not changed is not modified: it writes nothing. When
/// some changed, those that did not are read too (fetched again in full when only a 304 came
/// back): a run reads every feed it names, so that `--sync` sees their records.
///
/// Invariant: when `prepare` throws, no downloaded body is left behind.
public struct SourceFetching {
    let store: Store
    let refetch: Bool
    /// Where bodies are kept while the run reads them: beside the store when it is a file.
    let spoolDirectory: String

    /// What the run will read.
    enum Prepared {
        /// Every feed is a URL whose source has not changed since its last import; `refreshed`
        /// holds the source states whose validators the answers renewed (a body equal to the last
        /// import's, with a new `ETag` or `Last-Modified`).
        case notModified([SourceFetch], refreshed: [SourceState])
        /// The feeds to read (URL feeds point at their downloaded bodies), what to record, and
        /// what the run's report should warn about the fetches.
        case feeds([FeedInput], fetched: [SourceFetch], warnings: [String])
    }

    /// One feed's fetch: its inputs (nil when a 304 left nothing to read) and what to record.
    private struct Fetched {
        var inputs: [FeedInput]?
        var fetch: SourceFetch?
        var unchanged: Bool
        var warnings: [String] = []
        /// For an unchanged source whose answer renewed its validators: its state to record.
        var refreshed: SourceState?
    }

    func prepare(_ feeds: [FeedInput]) throws(ImportError) -> Prepared {
        guard feeds.contains(where: { $0.request != nil }) else { return .feeds(feeds, fetched: [], warnings: []) }
        var done: [Fetched] = []
        do {
            for feed in feeds { done.append(try fetch(feed)) }
            if done.allSatisfy({ $0.fetch != nil && $0.unchanged }) {
                SourceFetching.removeBodies(of: done.flatMap { $0.inputs ?? [] })
                return .notModified(done.compactMap(\.fetch), refreshed: done.compactMap(\.refreshed))
            }
            for index in done.indices where done[index].inputs == nil {
                done[index] = try fetch(feeds[index], conditionally: false)
            }
        } catch {
            SourceFetching.removeBodies(of: done.flatMap { $0.inputs ?? [] })
            throw error
        }
        return .feeds(done.flatMap { $0.inputs ?? [] }, fetched: done.compactMap(\.fetch), warnings: done.flatMap(\.warnings))
    }

    private func fetch(_ feed: FeedInput, conditionally: Bool = true) throws(ImportError) -> Fetched {
        guard var request = feed.request else { return Fetched(inputs: [feed], fetch: nil, unchanged: false) }
        let state = refetch ? nil : try storedState(of: feed)
        var stored = state.map { SourceValidators(etag: $0.etag, lastModified: $0.lastModified, sha256: $0.sha256) }
        // A URL filled from the store changes with it: only the body's hash says it is unchanged.
        if feed.source != nil { stored?.etag = nil; stored?.lastModified = nil }
        if let pages = feed.mapping.source?.pages {
            let walked = try PageWalk(feed: feed, request: request, pages: pages, spoolDirectory: spoolDirectory).walk()
            let unchanged = conditionally && stored?.sha256 != nil && stored?.sha256 == walked.fetch.validators.sha256
            return Fetched(inputs: walked.inputs, fetch: walked.fetch, unchanged: unchanged, warnings: walked.warnings)
        }
        request.validators = conditionally ? stored : nil
        let outcome: FetchOutcome
        do {
            outcome = try HTTPFetcher(request: request, spoolDirectory: spoolDirectory).fetchBlocking()
        } catch {
            throw .fetch(error)
        }
        switch outcome.recorded(as: feed.sourceName) {
        case .notModified(let fetch):
            guard conditionally else {
                throw .fetch(.refused(url: RedactedURL.text(request.url), status: 304, firstBytes: "answered 'not modified' to an unconditional request"))
            }
            return Fetched(inputs: nil, fetch: fetch, unchanged: true, refreshed: Self.renewed(state, by: fetch))
        case .body(let body):
            var input = feed
            input.path = body.file
            input.framing = body.framing
            return Fetched(inputs: [input], fetch: body.fetch, unchanged: false)
        }
    }

    /// What the store kept of the last import of the feed's URL (nil for a source not seen yet).
    private func storedState(of feed: FeedInput) throws(ImportError) -> SourceState? {
        do {
            return try store.read { (snapshot: StoreSnapshot) in try snapshot.sources.sourceState(url: feed.sourceName) }
        } catch {
            throw .store(store.storeError(from: error))
        }
    }

    /// `state` with the validators of `fetch`, a 2xx answer whose body was the last import's, when
    /// they differ from the kept ones (a 304 renews nothing: its validators are the ones sent).
    static func renewed(_ state: SourceState?, by fetch: SourceFetch) -> SourceState? {
        guard var state, (200 ..< 300).contains(fetch.status),
              fetch.validators.etag != state.etag || fetch.validators.lastModified != state.lastModified else { return nil }
        state.etag = fetch.validators.etag
        state.lastModified = fetch.validators.lastModified
        state.fetchedAt = Timestamp.now()
        return state
    }

    /// Removes the downloaded bodies of `feeds`.
    public static func removeBodies(of feeds: [FeedInput]) {
        for feed in feeds where feed.request != nil && !feed.path.isEmpty { try? FileManager.default.removeItem(atPath: feed.path) }
    }
}

extension FetchOutcome {
    /// The outcome with its source recorded under `name` (a templated URL's template).
    func recorded(as name: String) -> FetchOutcome {
        switch self {
        case .notModified(var fetch):
            fetch.url = name
            return .notModified(fetch)
        case .body(var body):
            body.fetch.url = name
            return .body(body)
        }
    }
}

extension FeedInput {
    /// The feed with its URL's body downloaded in full (unconditionally) into `directory`, every
    /// page of a paged source, for commands that read a feed without a store (`check`), a URL's
    /// `url-values` at their `initial` values; a file feed as it is. `warn` hears what a paged
    /// walk warns about. The caller removes the bodies (`SourceFetching.removeBodies`).
    public func downloaded(to directory: String = FileManager.default.temporaryDirectory.path,
                           warn: (String) -> Void = { _ in }) throws(ImportError) -> [FeedInput] {
        let feed = try URLTemplate.initialValues(self)
        guard var request = feed.request else { return [self] }
        request.validators = nil
        if let pages = mapping.source?.pages {
            let walked = try PageWalk(feed: feed, request: request, pages: pages, spoolDirectory: directory).walk()
            walked.warnings.forEach(warn)
            return walked.inputs
        }
        let body: FetchedBody
        do {
            body = try HTTPFetcher(request: request, spoolDirectory: directory).fetchWholeBody()
        } catch {
            throw .fetch(error)
        }
        var input = feed
        input.path = body.file
        return [input]
    }
}
