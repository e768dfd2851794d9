import ImporterModel
import ImporterStore

/// `importer migrate`'s retype, on both backends, inside the migration's transaction: every
/// stored value of the attribute, and every past value in its change table, converted by the
/// model's rules (`ValueConversion`). A conversion depends on the value alone, so each distinct
/// value is converted once: the database gathers them (`RetypeMap.values`), the model converts
/// them a page at a time (`RetypeMap.converted`: each distinct value with its new one), then the
/// backend rewrites the columns from that map (`rewriteRetyped`). A value that does not convert
/// refuses the retype, naming the first records, unless the model said what it becomes.
/// Memory: one page of values, whatever the number of records or distinct values.
/// One column a retype converts: the entity table's, or the change table's value or old value.
struct RetypedColumn {
    var table: String
    var id: String
    var column: String
    /// The columns naming a value's record in a refusal (its key; a change's transaction too).
    var label: [String]
    var isHistory: Bool
}

/// The temporary tables of a retype.
package enum RetypeMap {
    /// The distinct stored values (`key`: `SQLDialect.retypeKey` of each, `old`: the value, `n`: its place).
    package static let values = "importer_retype_values"
    /// Each place in `values` with its converted value (none: the value becomes null).
    package static let places = "importer_retype_places"
    /// Each distinct value's `key` with its converted value (`new`), read by `rewriteRetyped`.
    package static let converted = "importer_retype"
    /// Distinct values read, and converted values written, at a time.
    static let page = 2_000
}

extension SQLBackend {
    /// Retypes `name` of `entity` (as registered, renames applied) to `type`; `required`: the new
    /// model's word on the attribute, which a value that does not convert cannot make null.
    func retypeAttribute(_ name: String, of entity: EntityDescription, to type: AttributeType, required: Bool,
                         invalid: MigrationStep.InvalidValues) throws {
        guard let attribute = entity.attribute(named: name) else { return }
        let what = "retype \(entity.name).\(name): \(attribute.type.rawValue) → \(type.rawValue)"
        let isKey = entity.uniqueKey.contains(name)
        if type != .integer && type != .real, let view = try registeredViews().first(where: { $0.entity == entity.name
            && ($0.groupBy.contains(name) || $0.aggregates.contains { $0.attribute == name }) }) {
            throw StoreError.incompatibleModel(entity: entity.name, reason: "\(what): view \(view.name) reads it")
        }
        let columns = retypedColumns(name, of: entity)
        try gatherDistinctValues(of: columns, type: attribute.type)
        let failures = try convertDistinctValues(from: attribute.type, to: type, invalid: invalid)
        if failures > 0, invalid == .refuse || (invalid == .null && required) {
            try offenders(in: columns, from: attribute.type, to: type).check(required: required, invalid: invalid, what: what)
        }
        if isKey { try checkConvertedKey(name, of: entity, from: attribute.type, what: what) }
        try rewriteRetyped([columns[0].column], in: columns[0].table, from: attribute.type, to: type, key: isKey ? (entity, name) : nil)
        try rewriteRetyped([columns[1].column, columns[2].column], in: columns[1].table, from: attribute.type, to: type, key: nil)
        try executor.execute("DROP TABLE \(dialect.quoted(RetypeMap.converted))", [])
    }

    private func retypedColumns(_ name: String, of entity: EntityDescription) -> [RetypedColumn] {
        let tables = tables(of: entity), q = dialect.quoted
        let key = entity.uniqueKey.map(q)
        return [
            RetypedColumn(table: tables.table, id: q("id"), column: q(name), label: key, isHistory: false),
            RetypedColumn(table: tables.changeTable, id: tables.changeID, column: q(name), label: [tables.transactionNumber] + key, isHistory: true),
            RetypedColumn(table: tables.changeTable, id: tables.changeID, column: tables.old(name), label: [tables.transactionNumber] + key, isHistory: true),
        ]
    }

    /// Fills `RetypeMap.values` with the distinct non-null values of `columns` (each column's
    /// distinct first: a hash over one column is much cheaper than one over all of them).
    private func gatherDistinctValues(of columns: [RetypedColumn], type: AttributeType) throws {
        let q = dialect.quoted
        let each = columns.map { column in
            "SELECT DISTINCT \(dialect.retypeKey(column.column, type: type)) AS \(q("key")), \(column.column) AS \(q("old")) FROM \(column.table) WHERE \(column.column) IS NOT NULL"
        }
        for statement in [
            """
            CREATE TEMPORARY TABLE \(q(RetypeMap.values)) AS SELECT row_number() OVER () AS \(q("n")), \(q("key")), \(q("old"))
            FROM (SELECT DISTINCT \(q("key")), \(q("old")) FROM (\(each.joined(separator: " UNION ALL "))) AS \(q("each"))) AS \(q("distinct"))
            """,
            "CREATE INDEX \(q(RetypeMap.values + "_n")) ON \(q(RetypeMap.values)) (\(q("n")))",
        ] { try executor.execute(statement, []) }
    }

    /// Converts each distinct value into `RetypeMap.converted`; a value that does not convert takes
    /// `invalid`'s value, or has none (null). Returns how many distinct values did not convert.
    private func convertDistinctValues(from: AttributeType, to: AttributeType, invalid: MigrationStep.InvalidValues) throws -> Int {
        let q = dialect.quoted, type = dialect.columnType(to), executor = self.executor  // one executor: it keeps its prepared statements
        try executor.execute("CREATE TEMPORARY TABLE \(q(RetypeMap.places)) (\(q("n")) \(dialect.columnType(.integer)), \(q("new")) \(type))", [])
        var pending: [Value] = [], failures = 0, last: Int64 = 0
        func flush() throws {
            guard !pending.isEmpty else { return }
            let rows = stride(from: 0, to: pending.count, by: 2).map { "(\(p($0 + 1)), CAST(\(p($0 + 2)) AS \(type)))" }.joined(separator: ", ")
            try executor.execute("INSERT INTO \(q(RetypeMap.places)) (\(q("n")), \(q("new"))) VALUES \(rows)", pending)
            pending.removeAll(keepingCapacity: true)
        }
        while true {
            let rows = try executor.rows("""
                SELECT \(q("n")), \(q("old")) FROM \(q(RetypeMap.values)) WHERE \(q("n")) > \(p(1)) ORDER BY \(q("n")) LIMIT \(RetypeMap.page)
                """, [.integer(last)])
            for row in rows {
                guard let place = row.first?.integerValue else { continue }
                last = place
                switch ValueConversion.convert(row[1], from: from, to: to) {
                case .success(let new): pending += [.integer(place), new]
                case .failure:
                    failures += 1
                    if case .value(let fill) = invalid { pending += [.integer(place), fill] }
                }
                if pending.count >= 2 * 500 { try flush() }
            }
            if rows.count < RetypeMap.page { break }
        }
        try flush()
        for statement in [
            """
            CREATE TEMPORARY TABLE \(q(RetypeMap.converted)) AS SELECT v.\(q("key")), c.\(q("new")) FROM \(q(RetypeMap.values)) AS v
            JOIN \(q(RetypeMap.places)) AS c ON c.\(q("n")) = v.\(q("n"))
            """,
            "DROP TABLE \(q(RetypeMap.places))",
            "DROP TABLE \(q(RetypeMap.values))",
            dialect.lookupIndex(RetypeMap.converted + "_key", on: q(RetypeMap.converted), column: q("key")),
            "ANALYZE \(q(RetypeMap.converted))",
        ] { try executor.execute(statement, []) }
        return failures
    }

    /// The stored and past values that did not convert (those `RetypeMap.converted` has no value
    /// for): how many, and the first ten with their records and why.
    private func offenders(in columns: [RetypedColumn], from: AttributeType, to: AttributeType) throws -> Offenders {
        let q = dialect.quoted
        var offenders = Offenders()
        for column in columns {
            let unconverted = """
                FROM \(column.table) AS t WHERE t.\(column.column) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(q(RetypeMap.converted)) AS r
                WHERE r.\(q("key")) = \(dialect.retypeKey("t." + column.column, type: from)))
                """
            let count = try executor.rows("SELECT count(*) \(unconverted)", []).first?.first?.integerValue ?? 0
            let examples = try executor.rows("""
                SELECT t.\(column.column)\(column.label.map { ", t." + $0 }.joined()) \(unconverted) ORDER BY t.\(column.id) LIMIT \(max(0, 10 - offenders.named))
                """, [])
            for row in examples {
                guard case .failure(let failure) = ValueConversion.convert(row[0], from: from, to: to) else { continue }
                offenders.note(failure, label: Array(row.dropFirst()), isHistory: column.isHistory)
            }
            offenders.count += Int(count) - examples.count
        }
        return offenders
    }

    /// Refuses (65) a retype of key attribute `name` under which stored records would share a key
    /// (text `7` and `07` both the integer 7), naming the first shared values.
    private func checkConvertedKey(_ name: String, of entity: EntityDescription, from: AttributeType, what: String) throws {
        let q = dialect.quoted
        let key = entity.uniqueKey.map { $0 == name ? "r.\(q("new"))" : "e.\(q($0))" }.joined(separator: ", ")
        let shared = try executor.rows("""
            SELECT \(key), count(*) FROM \(tables(of: entity).table) AS e
            JOIN \(q(RetypeMap.converted)) AS r ON r.\(q("key")) = \(dialect.retypeKey("e." + q(name), type: from))
            GROUP BY \(key) HAVING count(*) > 1 ORDER BY min(e.\(q("id"))) LIMIT 10
            """, [])
        guard !shared.isEmpty else { return }
        let named = shared.map { row in "(" + row.dropLast().map(\.description).joined(separator: ", ") + ") by \(row.last?.description ?? "?") records" }
        throw StoreError.migrationRefused(what: what, reason: "converted, the key would be shared: " + named.joined(separator: "; ")
            + (shared.count == 10 ? "; …" : "") + ". Change those records first, or keep the type")
    }

    /// Puts a new column holding each value's converted one (`RetypeMap.converted`) in `column`'s
    /// place, for a backend that cannot change a column's type in place.
    package func replaceRetypedColumn(_ column: String, in table: String, from: AttributeType, to type: AttributeType) throws {
        let q = dialect.quoted, converted = q(RetypeMap.converted + "_new")
        for statement in [
            "ALTER TABLE \(table) ADD COLUMN \(converted) \(dialect.columnType(type))",
            """
            UPDATE \(table) SET \(converted) = r.\(q("new")) FROM \(q(RetypeMap.converted)) AS r
            WHERE r.\(q("key")) = \(dialect.retypeKey(table + "." + column, type: from))
            """,
            "ALTER TABLE \(table) DROP COLUMN \(column)",
            "ALTER TABLE \(table) RENAME COLUMN \(converted) TO \(column)",
        ] { try executor.execute(statement, []) }
    }
}

/// The values a retype could not convert: how many, and the first ten named by their record.
struct Offenders {
    var count = 0
    private var examples: [String] = []
    var named: Int { examples.count }

    mutating func note(_ failure: ValueConversion.Failure, label: [Value], isHistory: Bool) {
        count += 1
        guard examples.count < 10 else { return }
        let record = isHistory
            ? "transaction \(label.first?.description ?? "?") (\(label.dropFirst().map(\.description).joined(separator: ", ")))"
            : "(\(label.map(\.description).joined(separator: ", ")))"
        examples.append("\(record) \(failure.reason)")
    }

    /// Refuses the retype (65) when a value did not convert and `invalid` does not say what it
    /// becomes (or says null of a required attribute), naming the first ten.
    func check(required: Bool, invalid: MigrationStep.InvalidValues, what: String) throws {
        guard count > 0, invalid == .refuse || (invalid == .null && required) else { return }
        let remedy = required ? "retype-invalid: default with a default: value" : "retype-invalid: null, or default with a default: value"
        throw StoreError.migrationRefused(what: what, reason: "\(count) stored or past value(s) do not convert: "
            + examples.joined(separator: "; ") + (count > examples.count ? "; …" : "") + ". Fix them, or say what they become in the model (\(remedy))")
    }
}
