import Foundation
import ImporterModel

/// One source to fetch: its URL, the headers it needs (secret values named, never given inline),
/// what the last import of it kept (for a conditional request), and the limits of the fetch.
public struct FetchRequest: Sendable {
    public var url: URL
    /// Headers sent with each request to the source's origin (never carried to another origin on a
    /// redirect).
    public var headers: [(name: String, value: SecretValue)] = []
    /// Query parameters added to each request to the source's origin (an API key), never part of
    /// `url`: nothing importer records or prints holds them.
    public var parameters: [(name: String, value: SecretValue)] = []
    /// The validators of the last import of this URL: sent as `If-None-Match` / `If-Modified-Since`.
    public var validators: SourceValidators?
    /// The format the mapping expects: a body whose `Content-Type` contradicts it is refused.
    public var format: FeedFormat?
    public var limits = FetchLimits()

    public init(url: URL) {
        self.url = url
    }
}

/// What a source's last imported answer said of itself, kept in the store with the data.
public struct SourceValidators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    /// Of the body as received (after decompression), hex.
    public var sha256: String?

    public init(etag: String? = nil, lastModified: String? = nil, sha256: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.sha256 = sha256
    }
}

/// The bounds of one fetch.
public struct FetchLimits: Sendable {
    /// No attempt starts after this, and no wait is planned past it: the run then exits 75.
    public var deadline = FetchDuration(milliseconds: 90_000)
    public var connectTimeout = FetchDuration(milliseconds: 10_000)
    /// The longest a server may stay silent while sending its answer.
    public var idleTimeout = FetchDuration(milliseconds: 30_000)
    /// The largest body (after decompression) taken.
    public var maxBytes: Int64 = 4 << 30
    /// How many times a compressed body may expand.
    public var maxDecompressionRatio = 100
    public var maxRedirects = 5
    /// A PEM file of certificates trusted besides the system's.
    public var caFile: String?

    public init() {}
}

/// A header's value, taken from the environment or a file when the request is made, so that it
/// never appears on a command line, in the model file or in anything importer prints.
public enum SecretValue: Sendable, Equatable {
    case environment(String)
    case file(String)

    /// The value; an error naming where it was looked for (never a value).
    public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(FetchError) -> String {
        switch self {
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else { throw .secret("the environment variable \(name) is not set") }
            return value
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else { throw .secret("cannot read the file \(path)") }
            let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { throw .secret("the file \(path) is empty") }
            return value
        }
    }
}
