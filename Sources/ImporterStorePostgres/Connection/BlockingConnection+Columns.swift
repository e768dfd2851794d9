import Foundation
import ImporterModel
import PostgresNIO

extension BlockingConnection {
    /// A result's column names (also when it has no row) and its rows, any column type decoded
    /// (see `queryValue`); for `importer query`.
    func rowsWithColumns(_ sql: String, _ arguments: [Value] = []) throws(PostgresFailure) -> (columns: [String], rows: [[Value]]) {
        try checkAlive(sql)
        let query = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(arguments))
        return try request(sql) {
            let rows = try await self.connection.query(query, logger: self.logger)
            var values: [[Value]] = []
            for try await row in rows { values.append(try Self.values(row)) }
            return (rows.columns.map(\.name), values)
        }
    }

    /// A cell of any type as a value: integers and booleans as integers, floats and numerics as
    /// reals, times as ISO 8601 text, anything text-like as its text, other types named
    /// (`<bytea value>`: `importer query` reads any column).
    static func value(of cell: PostgresCell) throws -> Value {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .numeric: return .real(NSDecimalNumber(decimal: try cell.decode(Decimal.self)).doubleValue)
        case .timestamp, .timestamptz, .date:
            return .text(ISO8601DateFormatter().string(from: try cell.decode(Date.self)))
        case .uuid: return .text(try cell.decode(UUID.self).uuidString.lowercased())
        default:
            if let text = try? cell.decode(String.self) { return .text(text) }
            return .text("<\(cell.dataType) value>")
        }
    }
}
