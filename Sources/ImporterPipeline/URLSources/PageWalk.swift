import Crypto
import Foundation
import ImporterFeeds
import ImporterFetch
import ImporterModel

/// The pages of a paged source (`pages:` in its mapping), fetched in order into one feed: each
/// page is an input of the run, named by its own URL, and all of them record one source state
/// (the first page's URL, the hash of every page's hash, the bytes of all).
///
/// Invariants: the whole walk keeps within the request's deadline; secret headers go to the
/// source's own origin only; a next page already read, or more pages than the bound, is an error
/// and every page fetched so far is removed: a walk gives all its pages or none. A next-page
/// pointer is never trusted to be right by its silence: when the first page lacks an object the
/// pointer goes through, the walk fails (65); when it lacks only the pointer's last member, the
/// walk ends with a warning (a one-page answer, or a misspelt member).
struct PageWalk {
    let feed: FeedInput
    let request: FetchRequest
    let pages: Pagination
    let spoolDirectory: String

    struct Walked {
        var inputs: [FeedInput]
        var fetch: SourceFetch
        /// What the run's report should say about the walk (a pointer the first page lacks).
        var warnings: [String] = []
    }

    /// The source's name: its first page's URL, redacted (or its template, when filled from the store).
    private var shownSource: String { feed.source ?? RedactedURL.text(request.url) }

    func walk() throws(ImportError) -> Walked {
        var inputs: [FeedInput] = []
        do {
            return try walk(into: &inputs)
        } catch {
            SourceFetching.removeBodies(of: inputs)
            throw error
        }
    }

    private func walk(into inputs: inout [FeedInput]) throws(ImportError) -> Walked {
        let started = Date()
        var url = try first()
        var seen: Set<String> = [url.absoluteString]
        var hasher = SHA256()
        var total = SourceFetch(url: shownSource, status: 200, validators: SourceValidators(), bytes: 0, attempts: 0)
        var warnings: [String] = []
        while true {
            guard inputs.count < pages.maxPages else {
                throw .fetch(.pagination(url: shownSource, reason: "more than \(pages.maxPages) pages; nothing was imported (a larger 'max' under the mapping's 'pages' reads more)"))
            }
            let body = try fetch(url, started: started)
            var input = feed
            input.path = body.file
            input.request?.url = url
            input.source = shownSource
            input.framing = body.framing
            inputs.append(input)
            hasher.update(data: Data((body.fetch.validators.sha256 ?? "").utf8))
            total.bytes += body.fetch.bytes
            total.attempts += body.fetch.attempts
            total.status = body.fetch.status
            guard let next = try next(after: body, of: url, page: inputs.count, warnings: &warnings).map(withoutSecretParameters) else { break }
            guard seen.insert(next.absoluteString).inserted else {
                throw .fetch(.pagination(url: RedactedURL.text(url), reason: "page \(inputs.count) leads back to \(RedactedURL.text(next)), a page already read"))
            }
            url = next
        }
        total.validators.sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return Walked(inputs: inputs, fetch: total, warnings: warnings)
    }

    /// The first page's URL: the source's, with the counting parameter at its start.
    private func first() throws(ImportError) -> URL {
        switch pages.follow {
        case .offset(let parameter, _, let start), .page(let parameter, let start): try setting(parameter, to: String(start))
        case .link, .url, .cursor: request.url
        }
    }

    /// One page, in full, within what is left of the deadline. Secret headers go with it only
    /// when it is on the source's own origin.
    private func fetch(_ url: URL, started: Date) throws(ImportError) -> FetchedBody {
        var page = request
        page.url = url
        page.validators = nil
        if !HTTPFetcher.sameOrigin(url, request.url) { page.headers = [] }
        let left = request.limits.deadline.milliseconds - Int64(Date().timeIntervalSince(started) * 1000)
        guard left > 0 else {
            throw .fetch(.tryLater(url: RedactedURL.text(url), attempts: 0, lastProblem: "the pages before it used the deadline", deadline: request.limits.deadline))
        }
        page.limits.deadline = FetchDuration(milliseconds: left)
        do {
            return try HTTPFetcher(request: page, spoolDirectory: spoolDirectory).fetchWholeBody()
        } catch {
            throw .fetch(error)
        }
    }

    /// The page after `body` (page number `page`, fetched from `url`), or nil when it was the last.
    private func next(after body: FetchedBody, of url: URL, page: Int, warnings: inout [String]) throws(ImportError) -> URL? {
        let shown = RedactedURL.text(url)
        switch pages.follow {
        case .link:
            return body.nextLink
        case .url(let pointer):
            guard let text = try value(at: pointer, in: body, shown: shown, page: page, warnings: &warnings) else { return nil }
            guard let next = URL(string: text, relativeTo: url)?.absoluteURL, FeedSelection.url(next.absoluteString) != nil else {
                throw .fetch(.pagination(url: shown, reason: "\(pointer) holds '\(text.prefix(200))', not an http(s) URL"))
            }
            return next
        case .cursor(let pointer, let parameter):
            guard let cursor = try value(at: pointer, in: body, shown: shown, page: page, warnings: &warnings) else { return nil }
            return try setting(parameter, to: cursor)
        case .offset(let parameter, let size, let start):
            guard try records(in: body, shown: shown) >= size else { return nil }
            return try setting(parameter, to: String(start + size * page))
        case .page(let parameter, let start):
            guard try records(in: body, shown: shown) > 0 else { return nil }
            return try setting(parameter, to: String(start + page))
        }
    }

    /// The text at `pointer` in page number `page`; nil when null or empty, or absent from a page
    /// after the first. On the first page, a missing object on the pointer's way is an error and
    /// a missing last member a warning.
    private func value(at pointer: String, in body: FetchedBody, shown: String, page: Int, warnings: inout [String]) throws(ImportError) -> String? {
        let found: JSONPointerValue.Found
        do {
            found = try JSONPointerValue.find(pointer, in: try ByteSource(path: body.file, name: shown))
        } catch {
            throw .feed(error)
        }
        if case .absent(let missing) = found, page == 1 {
            guard missing == pointer else {
                throw .fetch(.pagination(url: shown, reason: "the first page has no \(missing), so the next-page pointer \(pointer) "
                    + "names nothing; nothing was imported (check 'pointer' under the mapping's 'pages')"))
            }
            warnings.append("\(shown): the first page has no \(pointer), so it was read as the only page "
                + "(if the API has more, check 'pointer' under the mapping's 'pages')")
        }
        guard let text = found.text, !text.isEmpty else { return nil }
        return text
    }

    private func records(in body: FetchedBody, shown: String) throws(ImportError) -> Int {
        do {
            return try FeedReaders.countRecords(for: feed.mapping, source: try ByteSource(path: body.file, name: shown))
        } catch {
            throw .feed(error)
        }
    }

    /// `url` without the source's secret query parameters, should a server echo them into its
    /// next link (they are added again to each request, and never recorded).
    private func withoutSecretParameters(_ url: URL) -> URL {
        QueryParameters.removing(Set(request.parameters.map(\.name)), from: url)
    }

    /// The source's URL with the query parameter `name` set to `value` (added when absent).
    private func setting(_ name: String, to value: String) throws(ImportError) -> URL {
        guard let url = QueryParameters.setting([(name, value)], in: request.url) else {
            throw .fetch(.pagination(url: shownSource, reason: "cannot set the query parameter '\(name)' of this URL"))
        }
        return url
    }
}
