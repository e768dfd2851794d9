import ImporterModel
import ImporterStore

/// `importer migrate`'s retype, on both backends, inside the migration's transaction: every
/// stored value of the attribute, and every past value in its change table, converted by the
/// model's rules (`ValueConversion`). One pass reads them into temporary tables of converted
/// values, and refuses, naming the first records, when a value does not convert and the model did
/// not say what it becomes; then a new column of the new type, filled from them, takes the old
/// column's place (a table of SQLite's cannot change a column's type). Memory: one page of values.
/// One column a retype converts: the entity table's, or the change table's value or old value.
struct RetypedColumn {
    var table: String
    var id: String
    var column: String
    /// The columns naming a value's record in a refusal (its key; a change's transaction too).
    var label: [String]
    var isHistory: Bool

    /// Rows read, and converted values written, at a time.
    static let page = 2_000
    /// The temporary table of converted values, by row id.
    static let scratch = "importer_retype"
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
        // One executor throughout: it keeps its prepared statements.
        let executor = self.executor
        let columns = retypedColumns(name, of: entity)
        var offenders = Offenders()
        for (index, column) in columns.enumerated() {
            try convert(column, into: RetypedColumn.scratch + "_\(index)", from: attribute.type, to: type, invalid: invalid, offenders: &offenders, executor)
        }
        try offenders.check(required: required, invalid: invalid, what: what)
        if isKey { try checkConvertedKey(name, of: entity, scratch: RetypedColumn.scratch + "_0", what: what) }
        for (index, column) in columns.enumerated() {
            // The key's column carries the table's unique constraint: the backend replaces it with the constraint.
            if isKey && index == 0 { try replaceKeyColumn(name, of: entity, type: type, scratch: RetypedColumn.scratch + "_0") } else {
                try replace(column, with: RetypedColumn.scratch + "_\(index)", type: type, executor)
            }
        }
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

    /// Calls `body` with each non-null value of `column`, its row id and its label values, a page at a time.
    private func forEachValue(of column: RetypedColumn, _ executor: any SQLExecutor, _ body: (Int64, [Value], Value) throws -> Void) throws {
        var last: Int64 = 0
        while true {
            let rows = try executor.rows("""
                SELECT \(column.id), \(column.column)\(column.label.map { ", " + $0 }.joined()) FROM \(column.table)
                WHERE \(column.id) > \(p(1)) AND \(column.column) IS NOT NULL ORDER BY \(column.id) LIMIT \(RetypedColumn.page)
                """, [.integer(last)])
            for row in rows {
                guard let id = row.first?.integerValue else { continue }
                try body(id, Array(row.dropFirst(2)), row[1])
                last = id
            }
            if rows.count < RetypedColumn.page { return }
        }
    }

    /// Converts `column`'s values into the temporary table `scratch` (row id → new value), noting
    /// those that do not convert; a failure takes `invalid`'s value, or stays out (null).
    private func convert(_ column: RetypedColumn, into scratch: String, from: AttributeType, to: AttributeType, invalid: MigrationStep.InvalidValues,
                         offenders: inout Offenders, _ executor: any SQLExecutor) throws {
        let q = dialect.quoted, type = dialect.columnType(to)
        try executor.execute("CREATE TEMPORARY TABLE \(q(scratch)) (\(q("id")) \(dialect.columnType(.integer)) PRIMARY KEY, \(q("value")) \(type))", [])
        var pending: [Value] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            let rows = stride(from: 0, to: pending.count, by: 2).map { "(\(p($0 + 1)), CAST(\(p($0 + 2)) AS \(type)))" }.joined(separator: ", ")
            try executor.execute("INSERT INTO \(q(scratch)) (\(q("id")), \(q("value"))) VALUES \(rows)", pending)
            pending.removeAll(keepingCapacity: true)
        }
        try forEachValue(of: column, executor) { id, label, value in
            switch ValueConversion.convert(value, from: from, to: to) {
            case .success(let new): pending += [.integer(id), new]
            case .failure(let failure):
                offenders.note(failure, label: label, isHistory: column.isHistory)
                if case .value(let fill) = invalid { pending += [.integer(id), fill] }
            }
            if pending.count >= 2 * 500 { try flush() }
        }
        try flush()
    }

    /// Refuses (65) a retype of key attribute `name` under which stored records would share a key
    /// (text `7` and `07` both the integer 7), naming the first shared values.
    private func checkConvertedKey(_ name: String, of entity: EntityDescription, scratch: String, what: String) throws {
        let q = dialect.quoted
        let key = entity.uniqueKey.map { $0 == name ? "r.\(q("value"))" : "e.\(q($0))" }.joined(separator: ", ")
        let shared = try executor.rows("""
            SELECT \(key), count(*) FROM \(tables(of: entity).table) AS e JOIN \(q(scratch)) AS r ON r.\(q("id")) = e.\(q("id"))
            GROUP BY \(key) HAVING count(*) > 1 ORDER BY min(e.\(q("id"))) LIMIT 10
            """, [])
        guard !shared.isEmpty else { return }
        let named = shared.map { row in "(" + row.dropLast().map(\.description).joined(separator: ", ") + ") by \(row.last?.description ?? "?") records" }
        throw StoreError.migrationRefused(what: what, reason: "converted, the key would be shared: " + named.joined(separator: "; ")
            + (shared.count == 10 ? "; …" : "") + ". Change those records first, or keep the type")
    }

    /// Puts a new column holding `scratch`'s values in `column`'s place.
    private func replace(_ column: RetypedColumn, with scratch: String, type: AttributeType, _ executor: any SQLExecutor) throws {
        let q = dialect.quoted, converted = q(scratch + "_value")
        for statement in [
            "ALTER TABLE \(column.table) ADD COLUMN \(converted) \(dialect.columnType(type))",
            "UPDATE \(column.table) SET \(converted) = r.\(q("value")) FROM \(q(scratch)) AS r WHERE r.\(q("id")) = \(column.table).\(column.id)",
            "ALTER TABLE \(column.table) DROP COLUMN \(column.column)",
            "ALTER TABLE \(column.table) RENAME COLUMN \(converted) TO \(column.column)",
            "DROP TABLE \(q(scratch))",
        ] { try executor.execute(statement, []) }
    }
}

/// The values a retype could not convert: how many, and the first ten named by their record.
struct Offenders {
    private var count = 0
    private var examples: [String] = []

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
