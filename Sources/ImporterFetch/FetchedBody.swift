import Foundation

/// What a fetch gives: nothing new (a 304, or the body of the last import again), or a body kept
/// whole in a temporary file, with what the store keeps of it.
public enum FetchOutcome: Sendable {
    /// The source has not changed since the import whose validators were sent.
    case notModified(SourceFetch)
    case body(FetchedBody)
}

/// A source's answer as the store records it (`importer status` shows it).
public struct SourceFetch: Sendable, Equatable {
    /// The URL fetched, redacted.
    public var url: String
    public var status: Int
    public var validators: SourceValidators
    public var bytes: Int64
    public var attempts: Int

    public init(url: String, status: Int, validators: SourceValidators, bytes: Int64, attempts: Int) {
        self.url = url
        self.status = status
        self.validators = validators
        self.bytes = bytes
        self.attempts = attempts
    }
}

/// A 2xx body that arrived whole, kept in `file` (removed by `remove()` or when the process
/// ends; the caller reads it as it reads a feed file).
public struct FetchedBody: Sendable {
    public var file: String
    public var fetch: SourceFetch
    public var contentType: String?
    /// The answer's `Link: <…>; rel="next"`, resolved: where a paged source goes on.
    public var nextLink: URL?
    /// How the body was delimited: a close-delimited one may have been cut where a record ends.
    public var framing: BodyFraming = .length

    public func remove() { try? FileManager.default.removeItem(atPath: file) }
}
