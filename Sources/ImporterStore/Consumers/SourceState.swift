/// What the store keeps of a feed fetched from a URL, written in the same transaction as the data
/// it brought (so the two can never be out of step): the validators a conditional request sends
/// next time, the body's hash and size, and when it was fetched.
public struct SourceState: Sendable, Equatable {
    /// The URL, redacted (no userinfo, no secret parameter values).
    public var url: String
    public var etag: String?
    public var lastModified: String?
    /// SHA-256 of the body as imported (after decompression), hex.
    public var sha256: String?
    public var bytes: Int64
    /// The HTTP status of the answer imported.
    public var status: Int
    public var fetchedAt: String
    /// The history transaction that imported it (nil when the import changed nothing).
    public var transactionNumber: Int64?

    public init(url: String, etag: String?, lastModified: String?, sha256: String?, bytes: Int64, status: Int, fetchedAt: String,
                transactionNumber: Int64?) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.sha256 = sha256
        self.bytes = bytes
        self.status = status
        self.fetchedAt = fetchedAt
        self.transactionNumber = transactionNumber
    }
}
