import ImporterTestSupport
@testable import ImporterReports
import Testing

/// The HTML report shows aggregates as people read them: a sum's floating-point rounding
/// (`766.6999999999999`) is not printed.
@Suite struct HTMLNumberTests {
    @Test func sumsAreRoundedTo12SignificantDigits() {
        #expect(HTMLChart.rounded(766.6999999999999) == "766.7")
        #expect(HTMLChart.rounded(0.32300000000000006) == "0.323")
        #expect(HTMLChart.rounded(1234567.0) == "1,234,567")
        #expect(HTMLChart.rounded(-0.1) == "-0.1")
        #expect(HTMLChart.exact(766.6999999999999) == "766.7")
        #expect(HTMLChart.exact(100_000) == "100,000")
    }
}
