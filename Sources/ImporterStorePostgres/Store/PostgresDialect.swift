import ImporterModel
import ImporterStoreSQL

/// PostgreSQL's dialect of the shared SQL, computing what SQLite computes: `$N` parameters;
/// NULL-safe equality written so that an index can serve it; sums and averages cast to double
/// precision (sums exactly, as numeric); conditions as 1/0 where values are expected (attributes of type boolean are
/// integers); text ordered by bytes (`COLLATE "C"`); NULL on division by zero; a view row's handle
/// is its `ctid`, valid inside the transaction that reads it; identity keys, metadata integers
/// kept as text, entities ordered by a registration position.
struct PostgresDialect: SQLDialect {
    func parameter(_ n: Int) -> String { "$\(n)" }
    func nullSafeEqual(_ lhs: String, _ rhs: String) -> String { "(\(lhs) = \(rhs) OR (\(lhs) IS NULL AND \(rhs) IS NULL))" }
    func columnType(_ type: AttributeType) -> String { PostgresEntitySchema.sqlType(type) }
    /// Summed as numeric, rounded to a double once: as close to the exact sum as SQLite's
    /// compensated `total`, so both backends store the same sums.
    func total(_ value: String) -> String { "CAST(coalesce(sum(CAST(\(value) AS numeric)), 0) AS double precision)" }
    /// Summed as doubles: a cast to numeric costs about 0.3 µs a value, most of a replay's
    /// statement (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
    func deltaTotal(_ value: String) -> String { "coalesce(sum(CAST(\(value) AS double precision)), 0)" }
    func average(_ value: String) -> String { "CAST(avg(\(value)) AS double precision)" }
    /// A substring search first, which builds no string and rules out most rows; then the word
    /// whole, between added commas (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
    func list(_ list: String, contains word: String) -> String {
        "(strpos(\(list), \(Expression.literal(.text(word)))) > 0 AND strpos(',' || \(list) || ',', \(Expression.literal(.text("," + word + ",")))) > 0)"
    }
    func divide(_ lhs: String, _ rhs: String) -> String { "(\(lhs) / NULLIF(\(rhs), 0))" }
    func value(ofCondition condition: String) -> String { "(CASE WHEN \(condition) THEN 1 WHEN NOT \(condition) THEN 0 END)" }
    func condition(ofValue value: String) -> String { "((\(value)) <> 0)" }
    func bytewise(_ column: String) -> String { "\(column) COLLATE \"C\"" }
    func distinctList(_ column: String) -> String { "string_agg(DISTINCT \(column), ',')" }
    var rowHandle: String { "ctid::text" }
    func matchRowHandle(_ parameter: String) -> String { "ctid = CAST(\(parameter) AS tid)" }
    func tableOptions(withoutRowID: Bool) -> String { "" }
    func generatedKey(neverReused: Bool) -> String { "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY" }
    var metadataValueType: String { "text" }
    func metadataValue(_ integer: Int64) -> Value { .text(String(integer)) }
    var registrationOrder: String { #""position""# }
    var registrationColumn: String? { #""position" bigint GENERATED ALWAYS AS IDENTITY"# }
    var addsFilledColumnsInPlace: Bool { true }
    /// Distinct values are few where a retype is common (a number, a flag, a code): hashed once,
    /// converted once (1,000,000 velocities hold 301), then looked up (`rewriteRetyped`).
    var retypesDistinctValues: Bool { true }
    /// A real by its bits: `=` holds -0 and 0 equal, and a -0 stored is read back as such.
    func retypeKey(_ column: String, type: AttributeType) -> String { type == .real ? "float8send(\(column))" : column }
    func retypeKeyType(_ type: AttributeType) -> String { type == .real ? "bytea" : columnType(type) }
    /// A hash index: any length of text, and a probe a value costs one hash.
    func lookupIndex(_ name: String, on table: String, column: String) -> String { "CREATE INDEX \(quoted(name)) ON \(table) USING hash (\(column))" }

    /// The integers bound as one array parameter: one statement text whatever their number.
    func isOneOf(_ column: String, _ integers: [Int64], parameter: Int) -> (condition: String, arguments: [Value]) {
        ("\(column) = ANY($\(parameter)::bigint[])", [.text("{" + integers.map(String.init).joined(separator: ",") + "}")])
    }

    func ordered(_ value: String, type: AttributeType) -> String {
        [.text, .date, .datetime].contains(type) ? "(\(value)) COLLATE \"C\"" : value
    }

    func call(_ function: Expression.Function, _ arguments: [String]) -> String {
        switch function {
        case .year: "CAST(substr(\(arguments[0]), 1, 4) AS bigint)"
        case .month: "CAST(substr(\(arguments[0]), 6, 2) AS bigint)"
        case .date: "substr(\(arguments[0]), 1, 10)"
        // PostgreSQL rounds to a number of places only numerics; SQLite's round gives a double.
        case .round: "CAST(round(CAST(\(arguments[0]) AS numeric)\(arguments.count > 1 ? ", CAST(\(arguments[1]) AS integer)" : "")) AS double precision)"
        case .length: "length(CAST(\(arguments[0]) AS text))"
        default: "\(function.rawValue)(\(arguments.joined(separator: ", ")))"
        }
    }
}

/// Runs the shared SQL on the store's connection (statements are prepared by the server per call).
struct PostgresExecutor: SQLExecutor {
    let connection: BlockingConnection

    func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] { try connection.rows(sql, arguments) }
    func execute(_ sql: String, _ arguments: [Value]) throws { _ = try connection.affected(sql, arguments) }
    func affected(_ sql: String, _ arguments: [Value]) throws -> Int { try connection.affected(sql, arguments) }
}
