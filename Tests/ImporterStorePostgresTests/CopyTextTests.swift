import ImporterTestSupport
import Foundation
import ImporterModel
@testable import ImporterStorePostgres
import PostgresTestSupport
import Testing

/// The COPY text the PostgreSQL backend stages feeds with reads back exactly, on a real server.
@Suite struct CopyTextTests {
    @Test func shortDecimalsAreFoundWithTheFewestFractionDigits() {
        #expect(DecimalDouble(48.1) == DecimalDouble(negative: false, digits: 481, fractionDigits: 1))
        #expect(DecimalDouble(0.182) == DecimalDouble(negative: false, digits: 182, fractionDigits: 3))
        #expect(DecimalDouble(-127.8) == DecimalDouble(negative: true, digits: 1278, fractionDigits: 1))
        #expect(DecimalDouble(33) == DecimalDouble(negative: false, digits: 33, fractionDigits: 0))
        #expect(DecimalDouble(-0.0) == DecimalDouble(negative: true, digits: 0, fractionDigits: 0))
        // Not short decimals: Swift's shortest form is written instead.
        for value in [0.1 + 0.2, 1e300, 1e-7, .pi, .infinity, -.infinity, .nan, 9_007_199_254_740_993.0 * 4] {
            #expect(DecimalDouble(value) == nil, "\(value)")
        }
    }

    @Test func everyDecimalReadsBackAsTheSameDouble() {
        var random = SplitMix64(seed: 12)
        for _ in 0..<200_000 {
            let value = Self.randomDouble(&random)
            guard let decimal = DecimalDouble(value) else { continue }
            var text = CopyText()
            text.append(.real(value), double: true)
            let written = String(decoding: Array(buffer: text.buffer), as: UTF8.self)
            #expect(Double(written)?.bitPattern == value.bitPattern, "\(value) written as \(written) (\(decimal))")
        }
    }

    /// Short decimals (most feed values), random bit patterns (a NaN as the quiet one a parser
    /// makes) and awkward ones.
    static func randomDouble(_ random: inout SplitMix64) -> Double {
        let bits = Double(bitPattern: random.next())
        return switch random.next() % 4 {
        case 0: bits.isNaN ? .nan : bits
        case 1: Double(Int64.random(in: -10_000_000...10_000_000, using: &random)) / DecimalDouble.powers[Int.random(in: 0...6, using: &random)]
        case 2: Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &random)) / DecimalDouble.powers[Int.random(in: 0...6, using: &random)]
        default: [0.0, -0.0, 1e-6, 5e-7, 999_999.999_999_5, 0.1 + 0.2, 1e22, 123_456_789.123_456].randomElement(using: &random) ?? 0
        }
    }

    @Test func aServerReadsBackEveryValueExactly() throws {
        let cluster = try PostgresTestCluster.start()
        let connection = try BlockingConnection.connect(to: try PostgresLocation(parsing: try cluster.newStoreURL()))
        defer { connection.close() }
        try connection.execute("CREATE TEMP TABLE t (n bigint, i bigint, d double precision, s text, r text)")
        var random = SplitMix64(seed: 7)
        let texts = ["plain", "tab\there", "new\nline", "back\\slash", "cr\rlf", "\\N", "", "ünïcode ✓", "a\t\\\n\r"]
        var expected: [[Value]] = []
        var text = CopyText()
        for n in 0..<5_000 {
            let row: [Value] = [.integer(Int64(n)), .integer([Int64.min, Int64.max, -1, 0, Int64.random(in: .min ... .max, using: &random)][n % 5]),
                                n % 7 == 0 ? .null : .real(Self.randomDouble(&random)), .text(texts[n % texts.count]),
                                .real(Self.randomDouble(&random))]
            for (index, value) in row.enumerated() { text.append(value, double: index == 2) }
            text.endRow()
            expected.append(row)
        }
        try connection.copy(into: "t", columns: ["n", "i", "d", "s", "r"], data: text.buffer)
        let rows = try connection.rows("SELECT n, i, d, s, r FROM t ORDER BY n")
        #expect(rows.count == expected.count)
        for (row, wanted) in zip(rows, expected) {
            #expect(row[0...1] == wanted[0...1] && row[3] == wanted[3], "\(row) against \(wanted)")
            switch (row[2], wanted[2]) {
            case (.real(let stored), .real(let value)):
                #expect(stored.bitPattern == value.bitPattern || (stored.isNaN && value.isNaN), "\(stored) against \(value)")
            default: #expect(row[2] == wanted[2])
            }
            // A real in a text column is stored in Swift's shortest form.
            if case .real(let value) = wanted[4] { #expect(row[4] == .text(value.description)) }
        }
    }
}
