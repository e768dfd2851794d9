import ImporterTestSupport
import ImporterModel
import ImporterStoreSQL
import Testing

/// How both backends read `importer query`'s text before the database parses it.
@Suite struct QueryTextTests {
    @Test func blanksAndCommentsAreSkipped() {
        let sql = " -- a comment\n /* another */ ( SELECT 1"
        #expect(QueryText.afterBlanksAndComments(Substring(sql), skipping: ["("]) == "SELECT 1")
        #expect(QueryText.afterBlanksAndComments(Substring(sql)) == "( SELECT 1")
        #expect(QueryText.afterBlanksAndComments(" ; -- only\n /* comments */ ;", skipping: [";"]).isEmpty)
        // An unterminated block comment is text the database will refuse, not a comment.
        #expect(QueryText.afterBlanksAndComments("/* open") == "/* open")
    }

    @Test func wholeNumbersAreBoundAsIntegers() {
        #expect(QueryText.parameterValue("42") == .integer(42) && QueryText.parameterValue("-7") == .integer(-7))
        #expect(QueryText.parameterValue("007") == .text("007") && QueryText.parameterValue("1.5") == .text("1.5"))
        #expect(QueryText.parameterValue("") == .text("") && QueryText.parameterValue("abc") == .text("abc"))
    }
}
