import ImporterSupport

/// Why a source gave nothing to import. URLs in these messages are redacted (`RedactedURL`).
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Temporary failures (connection errors, timeouts, 408, 429, 5xx) outlasted the deadline.
    case tryLater(url: String, attempts: Int, lastProblem: String, deadline: FetchDuration)
    /// The server refused for good (another 4xx): its status and the first bytes of its answer.
    case refused(url: String, status: Int, firstBytes: String)
    /// A 2xx answer that is not the feed: a `Content-Type` the mapping's format contradicts.
    case notTheFeed(url: String, contentType: String, firstBytes: String)
    /// The body is larger than allowed, or expands more than allowed.
    case tooLarge(url: String, reason: String)
    /// A redirect importer does not follow (too many, a loop, https to http, no location).
    case redirect(url: String, reason: String)
    /// The transport failed for a reason retrying cannot mend (TLS: an untrusted certificate).
    case transport(url: String, reason: String)
    /// A paged source that cannot be read as one feed: a next page already read (a loop), more
    /// pages than its bound, or a next-page value that is not usable.
    case pagination(url: String, reason: String)
    /// A secret header's value could not be read.
    case secret(String)
    /// The body could not be kept while it arrived.
    case spool(String)

    public var description: String {
        switch self {
        case .tryLater(let url, let attempts, let problem, let deadline):
            "\(url): still failing after \(attempts) attempt\(attempts == 1 ? "" : "s") within \(deadline) (last: \(problem)); try again later"
        case .refused(let url, let status, let firstBytes):
            "\(url): the server answered \(status)\(firstBytes.isEmpty ? "" : ": \(firstBytes)")"
        case .notTheFeed(let url, let contentType, let firstBytes):
            "\(url): the answer is \(contentType), not the feed the mapping reads\(firstBytes.isEmpty ? "" : ": \(firstBytes)")"
        case .tooLarge(let url, let reason): "\(url): \(reason)"
        case .redirect(let url, let reason): "\(url): \(reason)"
        case .transport(let url, let reason): "\(url): \(reason)"
        case .pagination(let url, let reason): "\(url): \(reason)"
        case .secret(let reason): "a secret header: \(reason)"
        case .spool(let reason): "cannot keep the downloaded body: \(reason)"
        }
    }
}

extension FetchError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .tryLater: .locked
        case .refused, .redirect, .transport: .unavailable
        case .notTheFeed, .tooLarge, .pagination: .badInput
        case .secret: .storeUnusable
        case .spool: .ioError
        }
    }
}
