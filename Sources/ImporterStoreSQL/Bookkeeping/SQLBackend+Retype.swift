import ImporterModel
import ImporterStore

/// `importer migrate`'s retype, on both backends, inside the migration's transaction: every
/// stored value of the attribute, and every past value in its change table, converted by the
/// model's rules (`ValueConversion`) into temporary maps (`RetypeLookup`), a page of values at a
/// time; a value that does not convert refuses the retype, naming the first records, unless the
/// model said what it becomes; then the backend rewrites the columns from the maps
/// (`rewriteRetyped`). Memory: one page of values, whatever the number of records.
/// One column a retype converts: the entity table's, or the change table's value or old value.
struct RetypedColumn {
    var table: String
    var id: String
    var column: String
    /// The columns naming a value's record in a refusal (its key; a change's transaction too).
    var label: [String]
    var isHistory: Bool
}

/// Where a retype finds the converted value of a column's row: the row of `map` (a temporary
/// table of `key` and `new`) whose `key` is the row's. A conversion depends on the value alone:
/// where the dialect says so (`SQLDialect.retypesDistinctValues`: PostgreSQL), one map holds each
/// distinct value of all the columns, converted once, found by the value (`SQLDialect.retypeKey`),
/// or there is no map: the database's own cast gives each what the model's conversion gives;
/// otherwise (SQLite, whose distinct values cost a random b-tree insert each, 4 s a million) each
/// column has a map by row id, written and read in the table's order.
package struct RetypeLookup {
    package var column: String
    /// None when `key` is the converted value itself (the database's cast).
    package var map: String?
    /// The SQL type of the map's `key`.
    package var keyType: String
    /// The map's `key` of a row, its columns prefixed by `qualifier` (`""`, `"e."`); without a
    /// map, the converted value.
    package var key: @Sendable (_ qualifier: String) -> String

    /// The converted value of a row of the table as `alias`, and the join (`JOIN`, or `kind`)
    /// that gives it.
    package func converted(_ alias: String, quoted q: (String) -> String, join kind: String = "JOIN") -> (join: String, value: String) {
        guard let map else { return ("", key(alias + ".")) }
        return (" \(kind) \(q(map)) AS r ON r.\(q("key")) = \(key(alias + "."))", "r.\(q("new"))")
    }
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
        var conversion = RetypeConversion(from: attribute.type, to: type, invalid: invalid)
        let lookups = try dialect.retypesDistinctValues ? convertDistinctValues(of: columns, &conversion) : convertRows(of: columns, &conversion)
        if conversion.failures > 0, invalid == .refuse || (invalid == .null && required) {
            try offenders(in: columns, lookups: lookups, conversion).check(required: required, invalid: invalid, what: what)
        }
        if isKey { try checkConvertedKey(name, of: entity, lookup: lookups[0], what: what) }
        try rewriteRetyped([lookups[0]], in: columns[0].table, to: type, key: isKey ? (entity, name) : nil)
        try rewriteRetyped([lookups[1], lookups[2]], in: columns[1].table, to: type, key: nil)
        for map in Set(lookups.compactMap(\.map)) { try executor.execute("DROP TABLE IF EXISTS \(dialect.quoted(map))", []) }
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

    /// The stored and past values that did not convert (those their map has no value for): how
    /// many, and the first ten with their records and why.
    private func offenders(in columns: [RetypedColumn], lookups: [RetypeLookup], _ conversion: RetypeConversion) throws -> Offenders {
        let q = dialect.quoted
        var offenders = Offenders()
        // A value that did not convert has no cast: there is a map.
        for (column, lookup) in zip(columns, lookups) {
            guard let map = lookup.map else { continue }
            let unconverted = """
                FROM \(column.table) AS t WHERE t.\(column.column) IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM \(q(map)) AS r WHERE r.\(q("key")) = \(lookup.key("t.")))
                """
            let count = try executor.integer("SELECT count(*) \(unconverted)")
            let examples = try executor.rows("""
                SELECT t.\(column.column)\(column.label.map { ", t." + $0 }.joined()) \(unconverted) ORDER BY t.\(column.id) LIMIT \(10 - offenders.named)
                """, [])
            for row in examples {
                guard case .failure(let failure) = conversion.convert(row[0]) else { continue }
                offenders.note(failure, label: Array(row.dropFirst()), isHistory: column.isHistory)
            }
            offenders.count += Int(count) - examples.count
        }
        return offenders
    }

    /// Refuses (65) a retype of key attribute `name` under which stored records would share a key
    /// (text `7` and `07` both the integer 7), naming the first shared values.
    private func checkConvertedKey(_ name: String, of entity: EntityDescription, lookup: RetypeLookup, what: String) throws {
        let q = dialect.quoted, converted = lookup.converted("e", quoted: q)
        let key = entity.uniqueKey.map { $0 == name ? converted.value : "e.\(q($0))" }.joined(separator: ", ")
        let shared = try executor.rows("""
            SELECT \(key), count(*) FROM \(tables(of: entity).table) AS e\(converted.join)
            GROUP BY \(key) HAVING count(*) > 1 ORDER BY min(e.\(q("id"))) LIMIT 10
            """, [])
        guard !shared.isEmpty else { return }
        let named = shared.map { row in "(" + row.dropLast().map(\.description).joined(separator: ", ") + ") by \(row.last?.description ?? "?") records" }
        throw StoreError.migrationRefused(what: what, reason: "converted, the key would be shared: " + named.joined(separator: "; ")
            + (shared.count == 10 ? "; …" : "") + ". Change those records first, or keep the type")
    }

    /// Puts a new column holding each row's converted value (`lookup`) in its column's place, for
    /// a backend that cannot change a column's type in place.
    package func replaceRetypedColumn(_ lookup: RetypeLookup, in table: String, to type: AttributeType) throws {
        let q = dialect.quoted, converted = q("importer_retyped")
        let update = lookup.map.map { "UPDATE \(table) SET \(converted) = r.\(q("new")) FROM \(q($0)) AS r WHERE r.\(q("key")) = \(lookup.key(table + "."))" }
            ?? "UPDATE \(table) SET \(converted) = \(lookup.key(table + "."))"
        for statement in [
            "ALTER TABLE \(table) ADD COLUMN \(converted) \(dialect.columnType(type))",
            update,
            "ALTER TABLE \(table) DROP COLUMN \(lookup.column)",
            "ALTER TABLE \(table) RENAME COLUMN \(converted) TO \(lookup.column)",
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
