import CSQLite
import Foundation
import ImporterModel
import ImporterStoreSQL

/// Recomputes views of one entity in a single scan of its table, aggregating in memory: no SQL
/// `GROUP BY` (whose sort dominated a rebuild) and one pass for all the entity's views.
///
/// Follows SQL's semantics exactly: `count(x)` counts non-null values, `total`-style sums, `min`
/// and `max` in SQLite's order ignoring NULL, `avg` over non-null values, NULL group values forming
/// one group. Memory grows with the number of groups, so the scan gives up (returns nil) past
/// `maximumGroups` and callers fall back to SQL, which spills to disk.
struct ViewAggregator {
    let entity: EntityDescription
    let schemas: [ViewSQL]
    var maximumGroups = 100_000

    fileprivate enum State {
        case count(Int64)
        case sum(Double)
        case extreme(Value, max: Bool)
        case average(Double, Int64)
    }

    /// For each view (in `schemas` order): group values → storage values (aggregates…, rows).
    func compute(_ connection: SQLiteConnection) throws -> [[[Value]: [Value]]]? {
        // One select list for every expression the views read, each once.
        var expressions: [String] = []
        func column(_ name: String) -> Int {
            let sql = entity.expression(for: name)?.sql(SQLiteDialect()) ?? "NULL"
            if let index = expressions.firstIndex(of: sql) { return index }
            expressions.append(sql)
            return expressions.count - 1
        }
        let groupColumns = schemas.map { $0.view.groupBy.map(column) }
        let argumentColumns = schemas.map { $0.view.aggregates.map { aggregate in aggregate.attribute.map(column) } }
        guard !expressions.isEmpty else { return schemas.map { _ in [:] } }
        let statement = try connection.prepare("SELECT \(expressions.joined(separator: ", ")) FROM \(SQLIdentifier.quoted(entity.tableName))")
        defer { statement.reset() }

        // One accumulator per group, mutated in place through the dictionary's default subscript
        // (no copy); single-column groups (the usual case) are keyed by their value, without an
        // array per row.
        var groups = schemas.map { _ in [ViewGroupKey: Accumulator]() }
        let initial = schemas.map { Accumulator(states: $0.view.aggregates.map(Self.initial)) }
        let counting = schemas.map { $0.view.aggregates.map { $0.attribute == nil } }
        var row = [Value](repeating: .null, count: expressions.count)
        while try statement.step() {
            for index in row.indices { row[index] = statement.value(at: Int32(index)) }
            for view in schemas.indices {
                let columns = groupColumns[view]
                let key = ViewGroupKey(row, columns: columns)
                groups[view][key, default: initial[view]].add(row, arguments: argumentColumns[view], counting: counting[view])
            }
            if groups.contains(where: { $0.count > maximumGroups }) { return nil }
        }
        return groups.map { view in
            var result: [[Value]: [Value]] = [:]
            for (key, accumulator) in view { result[key.values] = accumulator.states.flatMap(Self.storage) + [.integer(accumulator.rows)] }
            return result
        }
    }

    private struct Accumulator {
        var states: [State]
        var rows: Int64 = 0

        mutating func add(_ row: [Value], arguments: [Int?], counting: [Bool]) {
            for position in states.indices {
                let value = arguments[position].map { row[$0] }
                states[position] = ViewAggregator.add(value, to: states[position], counting: counting[position])
            }
            rows += 1
        }
    }

    private static func initial(_ aggregate: Aggregate) -> State {
        switch aggregate.function {
        case .count: .count(0)
        case .sum: .sum(0)
        case .min: .extreme(.null, max: false)
        case .max: .extreme(.null, max: true)
        case .avg: .average(0, 0)
        }
    }

    fileprivate static func add(_ value: Value?, to state: State, counting rows: Bool) -> State {
        switch state {
        case .count(let n):
            return .count(rows || !(value ?? .null).isNull ? n + 1 : n)
        case .sum(let total):
            return .sum(total + (value?.doubleValue ?? 0))
        case .extreme(let current, let isMax):
            guard let value, !value.isNull else { return state }
            if current.isNull { return .extreme(value, max: isMax) }
            let order = Value.compare(value, current)
            return (isMax ? order > 0 : order < 0) ? .extreme(value, max: isMax) : state
        case .average(let total, let count):
            guard let number = value?.doubleValue else { return state }
            return .average(total + number, count + 1)
        }
    }

    private static func storage(_ state: State) -> [Value] {
        switch state {
        case .count(let n): [.integer(n)]
        case .sum(let total): [.real(total)]
        case .extreme(let value, _): [value]
        case .average(let total, let count): [count > 0 ? .real(total / Double(count)) : .null, .real(total), .integer(count)]
        }
    }
}
