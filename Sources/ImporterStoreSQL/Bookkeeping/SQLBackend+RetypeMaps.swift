import ImporterModel
import ImporterStore

/// A retype's conversion of values (`ValueConversion`), counting those that do not convert.
struct RetypeConversion {
    var from: AttributeType
    var to: AttributeType
    var invalid: MigrationStep.InvalidValues
    /// Values (distinct ones, or rows) that did not convert so far.
    private(set) var failures = 0

    init(from: AttributeType, to: AttributeType, invalid: MigrationStep.InvalidValues) {
        (self.from, self.to, self.invalid) = (from, to, invalid)
    }

    func convert(_ value: Value) -> Result<Value, ValueConversion.Failure> { ValueConversion.convert(value, from: from, to: to) }

    /// `value` converted; one that does not convert takes `invalid`'s value, or none (nil: null).
    mutating func converted(_ value: Value) -> Value? {
        switch convert(value) {
        case .success(let new): return new
        case .failure:
            failures += 1
            if case .value(let fill) = invalid { return fill }
            return nil
        }
    }
}

/// The maps of `RetypeLookup`, a page of values at a time: read from the database, converted
/// here, written back as multi-row INSERTs into `(key, new)` temporary tables, each indexed on
/// its `key` once written.
extension SQLBackend {
    /// Rows read, and converted values written, at a time.
    private var retypePage: Int { 2_000 }

    /// The distinct non-null values of `columns` (PostgreSQL), gathered by the database (each
    /// column's distinct first: a hash over one column is much cheaper than one over all) and
    /// numbered, so that they are read a page at a time by their number: when the database's own
    /// cast gives each what the model's conversion gives (`castConvertsEvery`), the columns are
    /// rewritten by the cast, without a map; otherwise one map of them all.
    func convertDistinctValues(of columns: [RetypedColumn], _ conversion: inout RetypeConversion) throws -> [RetypeLookup] {
        let q = dialect.quoted, values = "importer_retype_values", places = "importer_retype_places", map = "importer_retype", from = conversion.from
        let each = columns.map { column in
            "SELECT DISTINCT \(dialect.retypeKey(column.column, type: from)) AS \(q("key")), \(column.column) AS \(q("old")) FROM \(column.table) WHERE \(column.column) IS NOT NULL"
        }
        for statement in [
            """
            CREATE TEMPORARY TABLE \(q(values)) AS SELECT row_number() OVER () AS \(q("n")), \(q("key")), \(q("old"))
            FROM (SELECT DISTINCT \(q("key")), \(q("old")) FROM (\(each.joined(separator: " UNION ALL "))) AS \(q("each"))) AS \(q("distinct"))
            """,
            "CREATE INDEX \(q(values + "_n")) ON \(q(values)) (\(q("n")))",
        ] { try executor.execute(statement, []) }
        if try castConvertsEvery(values, conversion) {
            try executor.execute("DROP TABLE \(q(values))", [])
            let type = dialect.columnType(conversion.to)
            return columns.map { column in RetypeLookup(column: column.column, map: nil, keyType: "", key: { "CAST(\($0 + column.column) AS \(type))" }) }
        }
        for statement in [
            "CREATE TEMPORARY TABLE \(q(places)) (\(q("key")) \(dialect.columnType(.integer)), \(q("new")) \(dialect.columnType(conversion.to)))",
        ] { try executor.execute(statement, []) }
        // Written by their number (a key may be of a type the database gives no `Value` of: bytes), then joined.
        try convert(into: places, &conversion) { last in
            try executor.rows("SELECT \(q("n")), \(q("old")) FROM \(q(values)) WHERE \(q("n")) > \(p(1)) ORDER BY \(q("n")) LIMIT \(retypePage)",
                              [.integer(last)]).map { (place: $0[0].integerValue ?? 0, key: $0[0], old: $0[1]) }
        }
        for statement in [
            """
            CREATE TEMPORARY TABLE \(q(map)) AS SELECT v.\(q("key")), c.\(q("new")) FROM \(q(values)) AS v
            JOIN \(q(places)) AS c ON c.\(q("key")) = v.\(q("n"))
            """,
            "DROP TABLE \(q(places))",
            "DROP TABLE \(q(values))",
            dialect.lookupIndex(map + "_key", on: q(map), column: q("key")),
            "ANALYZE \(q(map))",
        ] { try executor.execute(statement, []) }
        return columns.map { column in
            RetypeLookup(column: column.column, map: map, keyType: dialect.retypeKeyType(from), key: { [dialect] in dialect.retypeKey($0 + column.column, type: from) })
        }
    }

    /// A map by row id for each of `columns` (SQLite), read and written in the table's order.
    func convertRows(of columns: [RetypedColumn], _ conversion: inout RetypeConversion) throws -> [RetypeLookup] {
        let q = dialect.quoted, integer = dialect.columnType(.integer)
        var lookups: [RetypeLookup] = []
        for (index, column) in columns.enumerated() {
            let map = "importer_retype_\(index)"
            try executor.execute("CREATE TEMPORARY TABLE \(q(map)) (\(q("key")) \(integer) PRIMARY KEY, \(q("new")) \(dialect.columnType(conversion.to)))", [])
            try convert(into: map, &conversion) { last in
                try executor.rows("""
                    SELECT \(column.id), \(column.column) FROM \(column.table)
                    WHERE \(column.id) > \(p(1)) AND \(column.column) IS NOT NULL ORDER BY \(column.id) LIMIT \(retypePage)
                    """, [.integer(last)]).map { (place: $0[0].integerValue ?? 0, key: $0[0], old: $0[1]) }
            }
            lookups.append(RetypeLookup(column: column.column, map: map, keyType: integer, key: { $0 + column.id }))
        }
        return lookups
    }

    /// Whether `CAST(value AS type)` gives each distinct value of `values` exactly what the model's
    /// conversion gives (a real by its bits, a text by its bytes), every one converting. A cast
    /// the database refuses is rolled back to a savepoint: the answer is then no.
    private func castConvertsEvery(_ values: String, _ conversion: RetypeConversion) throws -> Bool {
        let q = dialect.quoted, executor = self.executor
        let select = """
            SELECT \(q("n")), \(q("old")), CAST(\(q("old")) AS \(dialect.columnType(conversion.to))) FROM \(q(values))
            WHERE \(q("n")) > \(p(1)) ORDER BY \(q("n")) LIMIT \(retypePage)
            """
        try executor.execute("SAVEPOINT importer_retype_cast", [])
        var last: Int64 = 0, same = true
        do {
            while same {
                let rows = try executor.rows(select, [.integer(last)])
                for row in rows where same {
                    last = row[0].integerValue ?? last
                    guard case .success(let new) = conversion.convert(row[1]) else { same = false; break }
                    same = Self.identical(new, row[2])
                }
                if rows.count < retypePage { break }
            }
        } catch {
            try executor.execute("ROLLBACK TO SAVEPOINT importer_retype_cast", [])
            same = false
        }
        try executor.execute("RELEASE SAVEPOINT importer_retype_cast", [])
        return same
    }

    /// The same value, to the bit (`Value`'s `==` holds -0 and 0 equal, `String`'s canonically
    /// equivalent texts equal).
    private static func identical(_ lhs: Value, _ rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }

    /// Converts the values `page` gives (those after a place, in increasing places; fewer than a
    /// page at the end) into `map`, one that does not convert only when `invalid` gives a value.
    private func convert(into map: String, _ conversion: inout RetypeConversion,
                         page: (_ after: Int64) throws -> [(place: Int64, key: Value, old: Value)]) throws {
        let q = dialect.quoted, type = dialect.columnType(conversion.to), executor = self.executor  // one executor: it keeps its prepared statements
        var pending: [Value] = [], last: Int64 = 0
        func flush() throws {
            guard !pending.isEmpty else { return }
            let rows = stride(from: 0, to: pending.count, by: 2).map { "(\(p($0 + 1)), CAST(\(p($0 + 2)) AS \(type)))" }.joined(separator: ", ")
            try executor.execute("INSERT INTO \(q(map)) (\(q("key")), \(q("new"))) VALUES \(rows)", pending)
            pending.removeAll(keepingCapacity: true)
        }
        while true {
            let values = try page(last)
            for value in values {
                last = value.place
                if let new = conversion.converted(value.old) { pending += [value.key, new] }
                if pending.count >= 2 * 500 { try flush() }
            }
            if values.count < retypePage { break }
        }
        try flush()
    }
}
