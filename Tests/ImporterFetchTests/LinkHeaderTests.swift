import ImporterTestSupport
import Foundation
import ImporterFetch
import Testing

/// `Link` headers as paged APIs send them (GitHub's, RFC 8288's examples): the `next` target,
/// resolved against the request's URL, wherever it sits among the links.
@Suite struct LinkHeaderTests {
    let base = URL(string: "https://api.example.org/v1/items?page=1")!

    @Test func theNextLinkIsFoundAmongOthersAndResolved() {
        let github = #"<https://api.example.org/v1/items?page=2>; rel="next", <https://api.example.org/v1/items?page=9>; rel="last""#
        #expect(LinkHeader.next([github], base: base)?.absoluteString == "https://api.example.org/v1/items?page=2")
        let reversed = #"<?page=1>; rel="prev first", </v1/items?page=3>; title="a, b; c"; rel="NEXT""#
        #expect(LinkHeader.next([reversed], base: base)?.absoluteString == "https://api.example.org/v1/items?page=3",
                "relations are case-insensitive, quoted commas and semicolons do not split, targets are relative")
        #expect(LinkHeader.next(["<?page=4>; rel=next"], base: base)?.absoluteString == "https://api.example.org/v1/items?page=4", "an unquoted rel")
        #expect(LinkHeader.next(["<a>; rel=\"prev\"", "<b>; rel=\"next\""], base: base)?.lastPathComponent == "b", "the header sent twice")
    }

    @Test func noNextLinkIsTheLastPage() {
        #expect(LinkHeader.next([], base: base) == nil)
        #expect(LinkHeader.next([#"<?page=1>; rel="prev", <?page=9>; rel="last""#], base: base) == nil)
        #expect(LinkHeader.next(["nonsense"], base: base) == nil)
        #expect(LinkHeader.next([#"<?page=2>; rel="nextish""#], base: base) == nil)
    }
}
