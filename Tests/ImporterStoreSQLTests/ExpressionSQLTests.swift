import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
import ImporterStoreSQL
@testable import ImporterStorePostgres
@testable import ImporterStoreSQLite
import PostgresTestSupport
import Testing

/// The shared SQL layer: a model expression is written once and rendered in each backend's
/// dialect; run on a real SQLite and a real PostgreSQL database over the same rows, the two agree
/// with each other and with the expected values (conditions as 1/0, NULL propagation, integer
/// division, text concatenation, dates).
@Suite struct ExpressionSQLTests {
    /// Rows of (latitude, energy, date, name).
    static let rows: [[Value]] = [
        [.real(12.5), .integer(7), .text("2024-03-01 10:00:00"), .text("alpha")],
        [.real(-3), .integer(0), .text("2019-12-31 23:59:59"), .null],
        [.null, .null, .null, .text("x")],
    ]

    static let cases: [(String, [Value])] = [
        ("case when latitude is null then 'unknown' when latitude >= 0 then 'N' else 'S' end", [.text("N"), .text("S"), .text("unknown")]),
        ("energy * 2 + 1", [.integer(15), .integer(1), .null]),
        ("latitude >= 0 and energy > 1", [.integer(1), .integer(0), .null]),
        ("name is null", [.integer(0), .integer(1), .integer(0)]),
        ("year(date)", [.integer(2024), .integer(2019), .null]),
        ("name || '!'", [.text("alpha!"), .null, .text("x!")]),
        ("not (latitude < 0)", [.integer(1), .integer(0), .null]),
    ]

    /// The expression over `rows` in `dialect`, run by `query` (SQL with the rows inlined).
    static func evaluate(_ text: String, _ dialect: any SQLDialect, types: [String], query: (String) throws -> [[Value]]) throws -> [Value] {
        let expression = try ExpressionParser.parse(text)
        let names = ["latitude", "energy", "date", "name"]
        let selects = rows.enumerated().map { index, row in
            "SELECT \(index) AS ord, " + zip(zip(row, names), types).map { pair, type in
                "CAST(\(Expression.literal(pair.0)) AS \(type)) AS \(dialect.quoted(pair.1))"
            }.joined(separator: ", ")
        }
        let sql = "SELECT \(expression.sql(dialect)) FROM (\(selects.joined(separator: " UNION ALL "))) r ORDER BY ord"
        return try query(sql).map { $0.first ?? .null }
    }

    @Test(arguments: cases)
    func oneExpressionGivesTheSameValuesOnBothBackends(text: String, expected: [Value]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let connection = try SQLiteConnection(path: directory.path("e.sqlite"), create: true)
        let onSQLite = try Self.evaluate(text, SQLiteDialect(), types: ["REAL", "INTEGER", "TEXT", "TEXT"]) { try connection.rows($0) }
        #expect(onSQLite == expected, "SQLite: \(text)")
        let store = try Store.open(try PostgresTestCluster.start().newStoreURL())
        let postgres = try #require(store.backend as? PostgresStore)
        let onPostgres = try Self.evaluate(text, PostgresDialect(), types: ["double precision", "bigint", "text", "text"]) {
            try PostgresExecutor(connection: postgres.connection).rows($0, [])
        }
        #expect(onPostgres.map(Self.normalized) == expected.map(Self.normalized), "PostgreSQL: \(text)")
    }

    /// Reals that are whole numbers compare as integers (PostgreSQL's double arithmetic).
    static func normalized(_ value: Value) -> Value {
        if case .real(let real) = value, real == real.rounded(), abs(real) < 1e15 { return .integer(Int64(real)) }
        return value
    }
}
