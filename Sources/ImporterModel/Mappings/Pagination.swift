/// How a paged source's pages follow one another (`pages:` in a model file). Every page of a run
/// is read as one feed in one transaction, so `--sync` applies to the union of the pages.
///
/// Invariants: a walk never asks for the same page twice (a repeated next URL or cursor is an
/// error, not a loop), and never goes past `maxPages` (more pages is an error, never a silently
/// partial snapshot).
public struct Pagination: Sendable, Equatable {
    public enum Follow: Sendable, Equatable {
        /// The `Link: <…>; rel="next"` header of each answer (RFC 8288).
        case link
        /// The next page's URL, at a JSON pointer into each page (absent, null or empty: the last).
        case url(pointer: String)
        /// A cursor at a JSON pointer into each page, sent back as the query parameter `parameter`.
        case cursor(pointer: String, parameter: String)
        /// The query parameter `parameter` counting records from `start` in steps of `size`; a page
        /// of fewer than `size` records is the last.
        case offset(parameter: String, size: Int, start: Int)
        /// The query parameter `parameter` numbering pages from `start`; an empty page ends.
        case page(parameter: String, start: Int)
    }

    public var follow: Follow
    /// The most pages one run reads.
    public var maxPages: Int

    public static let defaultMaxPages = 100

    public init(follow: Follow, maxPages: Int = Pagination.defaultMaxPages) {
        self.follow = follow
        self.maxPages = maxPages
    }

    /// The word `follow:` takes for this kind.
    public var kind: String {
        switch follow {
        case .link: "link"
        case .url: "url"
        case .cursor: "cursor"
        case .offset: "offset"
        case .page: "page"
        }
    }
}
