import AsyncHTTPClient
import Crypto
import Foundation
import ImporterModel
import ImporterSupport
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches one source over HTTP(S) as a cron job needs it: a conditional request when validators
/// are known, temporary failures retried with backoff within the deadline (`RetrySchedule`,
/// honouring `Retry-After`), permanent ones reported at once, and a 2xx body kept whole in a
/// temporary file (hashed as it arrives, bounded in size) before anything parses it.
///
/// Invariants: a non-2xx body is never kept; secret header values go only to the source's own
/// origin; an https URL is never redirected to http; every URL it reports is redacted.
public struct HTTPFetcher: Sendable {
    public var request: FetchRequest
    /// Where bodies are kept while they arrive (beside the store, say).
    public var spoolDirectory: String
    public var userAgent = "importer"
    public var environment = ProcessInfo.processInfo.environment

    public init(request: FetchRequest, spoolDirectory: String = FileManager.default.temporaryDirectory.path) {
        self.request = request
        self.spoolDirectory = spoolDirectory
    }

    var shownURL: String { RedactedURL.text(request.url) }

    /// Fetches, retrying within the deadline, which bounds the whole exchange: past it, whatever
    /// the server is sending, the request is cancelled and the fetch is `tryLater`.
    public func fetch() async throws(FetchError) -> FetchOutcome {
        SpoolFile.sweep(spoolDirectory)
        let client = try makeClient()
        let log = AttemptLog()
        let result: Result<FetchOutcome, FetchError>
        do {
            let fetcher = self
            result = .success(try await ExchangeDeadline.run(within: request.limits.deadline.seconds) {
                try await fetcher.retrying(client, log: log)
            })
        } catch let error as FetchError {
            result = .failure(error)
        } catch {
            let (attempts, problem) = log.state.withLock { ($0.attempts, $0.problem) }
            result = .failure(.tryLater(url: shownURL, attempts: attempts, lastProblem: problem ?? "the deadline passed before the answer arrived in full",
                                        deadline: request.limits.deadline))
        }
        try? await client.shutdown()
        return try result.get()
    }

    /// What the attempts so far did, for the message of a fetch the deadline stopped.
    final class AttemptLog: Sendable {
        struct State: Sendable {
            var attempts = 0
            var problem: String?
        }
        let state = Monitor(State())
    }

    /// The body in full, for a request without validators (a 304 then is the server's error).
    public func fetchWholeBody() throws(FetchError) -> FetchedBody {
        guard case .body(let body) = try fetchBlocking() else {
            throw .refused(url: shownURL, status: 304, firstBytes: "answered 'not modified' to an unconditional request")
        }
        return body
    }

    /// `fetch()` for synchronous callers (the commands): the task runs on the calling thread
    /// (`CallingThreadExecutor`).
    public func fetchBlocking() throws(FetchError) -> FetchOutcome {
        let fetcher = self
        do {
            return try CallingThreadExecutor<FetchOutcome>().run { try await fetcher.fetch() }
        } catch let error as FetchError {
            throw error
        } catch {
            throw .transport(url: shownURL, reason: "\(error)")
        }
    }

    private func retrying(_ client: HTTPClient, log: AttemptLog) async throws(FetchError) -> FetchOutcome {
        let schedule = RetrySchedule(deadline: request.limits.deadline.seconds)
        let started = Date()
        var attempts = 0
        while true {
            attempts += 1
            log.state.withLock { $0.attempts = attempts }
            let problem: String
            let retryAfter: Double?
            switch try await attempt(client, number: attempts, started: started) {
            case .done(let outcome): return outcome
            case .retry(let reason, let after):
                problem = reason
                retryAfter = after
            }
            log.state.withLock { $0.problem = problem }
            let elapsed = Date().timeIntervalSince(started)
            guard !Task.isCancelled, let wait = schedule.delay(afterAttempts: attempts, elapsed: elapsed, retryAfter: retryAfter) else {
                throw .tryLater(url: shownURL, attempts: attempts, lastProblem: problem, deadline: request.limits.deadline)
            }
            await ExchangeDeadline.sleep(wait)
        }
    }

    enum Attempt {
        case done(FetchOutcome)
        case retry(String, retryAfter: Double?)
    }

    /// One attempt: the request and its redirects, then the answer read or judged.
    private func attempt(_ client: HTTPClient, number: Int, started: Date) async throws(FetchError) -> Attempt {
        let remaining = request.limits.deadline.seconds - Date().timeIntervalSince(started)
        let deadline = NIODeadline.now() + .milliseconds(Int64(max(remaining, 0.001) * 1000))
        do {
            return try await followingRedirects(client, deadline: deadline) { response in try await answer(response, attempts: number) }
        } catch let error as FetchError {
            throw error
        } catch {
            if let permanent = Self.permanentTransportFailure(error) ?? proxyRefusal(error) { throw .transport(url: shownURL, reason: permanent) }
            if Self.isDecompressionLimit(error) {
                throw .tooLarge(url: shownURL, reason: "the body expands more than \(request.limits.maxDecompressionRatio) times")
            }
            return .retry(Self.describe(error), retryAfter: nil)
        }
    }

    /// Sends the request, following at most `maxRedirects` redirects by hand: never from https to
    /// http, never back to a URL already visited, secret headers only to the first URL's origin.
    /// The final answer goes to `handle` while its body can still be read.
    private func followingRedirects(_ client: HTTPClient, deadline: NIODeadline, handle: (ReceivedAnswer) async throws -> Attempt) async throws -> Attempt {
        enum Hop {
            case done(Attempt)
            case redirect(status: Int, location: String?)
        }
        var url = request.url
        var visited: Set<String> = []
        while true {
            visited.insert(url.absoluteString)
            let hop = try await exchange(client, try httpRequest(for: url), deadline: deadline) { response -> Hop in
                guard [301, 302, 303, 307, 308].contains(response.status) else { return .done(try await handle(response)) }
                return .redirect(status: response.status, location: response.headers.first(name: "location"))
            }
            guard case .redirect(let status, let location) = hop else {
                guard case .done(let attempt) = hop else { preconditionFailure("a hop is done or a redirect") }
                return attempt
            }
            guard visited.count <= request.limits.maxRedirects else {
                throw FetchError.redirect(url: shownURL, reason: "more than \(request.limits.maxRedirects) redirects")
            }
            guard let location, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                throw FetchError.redirect(url: shownURL, reason: "a \(status) redirect without a usable Location")
            }
            if url.scheme == "https", next.scheme != "https" {
                throw FetchError.redirect(url: shownURL, reason: "redirected from https to \(RedactedURL.text(next, secretParameters: secretParameterNames)); importer does not downgrade")
            }
            guard !visited.contains(next.absoluteString) else {
                throw FetchError.redirect(url: shownURL, reason: "a redirect loop through \(RedactedURL.text(next, secretParameters: secretParameterNames))")
            }
            url = next
        }
    }

    /// One request and its answer, handed to `handle`: an `http://` URL with a proxy goes to it
    /// in absolute form (`ForwardProxyExchange`), anything else through async-http-client.
    private func exchange<T>(_ client: HTTPClient, _ http: HTTPClientRequest, deadline: NIODeadline,
                             _ handle: (ReceivedAnswer) async throws -> T) async throws -> T {
        if let url = URL(string: http.url), url.scheme == "http", let proxy = ProxySettings(environment: environment).proxy(for: url) {
            let forward = ForwardProxyExchange(proxy: proxy, limits: request.limits)
            return try await forward.send(http, handle)
        }
        let response = try await client.execute(http, deadline: deadline)
        return try await handle(ReceivedAnswer(status: Int(response.status.code), headers: response.headers, body: .client(response.body)))
    }

    private func httpRequest(for url: URL) throws(FetchError) -> HTTPClientRequest {
        let origin = Self.sameOrigin(url, request.url)
        let sent = URLCredentials.removed(from: url)
        var http = HTTPClientRequest(url: origin ? try withSecretParameters(sent).absoluteString : sent.absoluteString)
        http.headers.add(name: "User-Agent", value: userAgent)
        http.headers.add(name: "Accept", value: Self.accept(request.format))
        guard origin else { return http }
        for (name, value) in request.headers { http.headers.add(name: name, value: try value.resolve(environment: environment)) }
        // Credentials in the URL go as Basic, unless the mapping sends its own Authorization.
        if !http.headers.contains(name: "authorization"), let basic = URLCredentials.basicAuthorization(request.url) {
            http.headers.add(name: "Authorization", value: basic)
        }
        if let etag = request.validators?.etag { http.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = request.validators?.lastModified { http.headers.add(name: "If-Modified-Since", value: lastModified) }
        return http
    }

    /// `url` with the request's secret query parameters added.
    private func withSecretParameters(_ url: URL) throws(FetchError) -> URL {
        guard !request.parameters.isEmpty else { return url }
        var values: [(name: String, value: String)] = []
        for (name, value) in request.parameters { values.append((name, try value.resolve(environment: environment))) }
        return QueryParameters.setting(values, in: url) ?? url
    }

    /// The names of query parameters whose values are never printed.
    var secretParameterNames: Set<String> { Set(request.parameters.map(\.name)) }

    /// Whether `a` and `b` share scheme, host and port (where secret headers may go).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }

    static func accept(_ format: FeedFormat?) -> String {
        switch format {
        case .json?, .nasaColumnar?: "application/json, */*;q=0.5"
        case .ndjson?: "application/x-ndjson, application/json;q=0.9, */*;q=0.5"
        case .xml?: "application/xml, text/xml, application/atom+xml, application/rss+xml, */*;q=0.5"
        case .csv?: "text/csv, */*;q=0.5"
        case nil: "*/*"
        }
    }
}
