/// A feed mapping's own URL (`url:` in a model file) and the headers its requests carry, whose
/// values are read from the environment or a file when the request is made: a model file never
/// holds a secret.
public struct FeedSource: Sendable, Equatable {
    public var url: String
    public var headers: [Header]
    /// Query parameters added to each request to the source's origin, valued like headers (an API
    /// key the API takes in the query): never part of the URL importer records or prints.
    public var parameters: [Header] = []
    /// How the source's pages follow one another; nil for a source of one page.
    public var pages: Pagination?
    /// The values of the URL's `{name}` placeholders, computed from the store; none for a fixed URL.
    public var values: [URLValue] = []

    /// A header whose value is the environment variable `environment`, or the content of `file`
    /// (trimmed).
    public struct Header: Sendable, Equatable {
        public var name: String
        public var environment: String?
        public var file: String?

        public init(name: String, environment: String? = nil, file: String? = nil) {
            self.name = name
            self.environment = environment
            self.file = file
        }
    }

    public init(url: String, headers: [Header] = [], pages: Pagination? = nil) {
        self.url = url
        self.headers = headers
        self.pages = pages
    }
}
