import ImporterTestSupport
import Foundation
@testable import ImporterFeeds
@testable import ImporterKit
import Testing

/// Found by fuzzing (Fuzz/regressions/json/repeated-all-empty-array-then-value): under
/// `repeated: all`, a field whose first value is an empty array and that gets another value in the
/// same record (a repeated key) must still read as a JSON array.
@Suite struct JSONRepeatedAllEmptyArrayTests {
    @Test(arguments: [#"{"tags":[],"tags":"x"}"#, #"{"tags":[],"tags":[]}"#, #"{"tags":[],"tags":["x",1]}"#])
    func emptyArrayThenMoreValuesIsAJSONArray(_ document: String) throws {
        let text = try #require(try JSONPointerTests.read(document, pointers: ["/tags"], repeated: .all)["/tags"])
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        #expect(parsed is [Any], "'\(text)' is not a JSON array")
    }
}
