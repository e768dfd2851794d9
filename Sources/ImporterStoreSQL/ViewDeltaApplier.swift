import ImporterModel
import ImporterStore

/// Applies a range of history changes to a derived view's table, group by group: the per-group
/// delta (`ViewSQL.delta`) is added to the stored aggregates; a group reaching 0 records is
/// deleted; a minimum or maximum whose extreme left its group is recomputed from the entity table.
///
/// Invariant: after `apply`, the view's rows equal a full recomputation over the entity table,
/// provided they did before (a delta that would make a group negative or leave a missing group is
/// `ViewError.outOfSync`, and the caller's transaction rolls back).
package struct ViewDeltaApplier {
    package let sql: ViewSQL
    package let executor: any SQLExecutor

    package init(sql: ViewSQL, executor: any SQLExecutor) {
        self.sql = sql
        self.executor = executor
    }

    private var view: ViewDefinition { sql.view }

    /// Applies the change rows with ids in `range`, counting what it did into `effect`: the delta
    /// computed by `ViewSQL.delta`'s `GROUP BY`.
    package func apply(_ range: ClosedRange<Int64>, effect: inout ViewEffect) throws {
        let oneTransaction = try Self.isOneTransaction(range, sql: sql, executor: executor)
        let bounds: [Value] = [.integer(range.lowerBound), .integer(range.upperBound)]
        try apply(deltas: try executor.rows(sql.delta(oneTransaction: oneTransaction), bounds), effect: &effect)
    }

    /// Applies delta rows laid out as `ViewSQL.delta`'s (one per group, from SQL or
    /// `ViewDeltaScan`), counting what it did into `effect`. The groups are read and updated
    /// `batch` at a time (one round trip each, not one per group).
    package func apply(deltas: [[Value]], effect: inout ViewEffect) throws {
        var lostExtremes: [[Value]] = []
        var updates: [[Value]] = []
        for chunk in Self.batches(deltas.filter { !isNeutral($0) }) {
            let stored = try storedRows(of: chunk)
            for (delta, current) in zip(chunk, stored) {
                if let group = try apply(delta: delta, current: current, updates: &updates, effect: &effect) { lostExtremes.append(group) }
            }
            try update(&updates)
        }
        try recompute(lostExtremes, effect: &effect)
    }

    /// Recomputes the groups that lost a minimum or maximum from the entity table: a hundred groups
    /// per scan of it (`ViewSQL.recomputeGroups`), a group holding a NULL (which `IN` cannot match)
    /// by a scan of its own; then writes them as the deltas are written.
    private func recompute(_ groups: [[Value]], effect: inout ViewEffect) throws {
        var rows: [[Value]] = []
        let withNull = groups.filter { $0.contains(where: \.isNull) }
        for chunk in Self.batches(groups.filter { !$0.contains(where: \.isNull) }) {
            rows += try executor.rows(sql.recomputeGroups(chunk.count), chunk.flatMap { $0 })
        }
        for group in withNull {
            rows += try executor.rows(sql.recomputeGroup, group).prefix(1)
        }
        let groupCount = view.groupBy.count
        for chunk in Self.batches(rows) {
            var updates: [[Value]] = []
            for (row, current) in zip(chunk, try storedRows(of: chunk)) {
                guard let handle = current?.first else { continue }
                updates.append([handle] + row.dropFirst(groupCount))
                effect.recomputedGroups += 1
            }
            try update(&updates)
        }
    }

    /// Groups read or updated per statement.
    static let batch = 100

    /// `items` in runs of `batch`, in order.
    private static func batches<T>(_ items: [T]) -> [[T]] {
        stride(from: 0, to: items.count, by: batch).map { Array(items[$0..<min($0 + batch, items.count)]) }
    }

    /// The stored rows (handle, then storage columns after the groups) of the groups `deltas` (or
    /// recomputed rows) begin with, in their order; nil for a group the view does not have.
    private func storedRows(of deltas: [[Value]]) throws -> [[Value]?] {
        let groupCount = view.groupBy.count
        var stored = [[Value]?](repeating: nil, count: deltas.count)
        for row in try executor.rows(sql.selectGroups(deltas.count), deltas.flatMap { $0.prefix(groupCount) }) {
            guard let position = row.first?.integerValue, deltas.indices.contains(Int(position)) else {
                throw StoreError.invariant("view \(view.name): a stored group matched no group of its delta")
            }
            stored[Int(position)] = Array(row.dropFirst())
        }
        return stored
    }

    /// Runs the pending `updates` (each: handle, then storage values) in one statement, and empties
    /// them.
    private func update(_ updates: inout [[Value]]) throws {
        guard !updates.isEmpty else { return }
        try executor.execute(sql.updateGroups(updates.count), updates.flatMap { $0 })
        updates.removeAll()
    }

    /// Whether the change rows with ids in `range` lie in one transaction (of `sql`'s entity).
    package static func isOneTransaction(_ range: ClosedRange<Int64>, sql: ViewSQL, executor: any SQLExecutor) throws -> Bool {
        let bounds: [Value] = [.integer(range.lowerBound), .integer(range.upperBound)]
        let transactions = try executor.rows(sql.rangeTransactions, bounds).first
        return transactions.map { !$0[0].isNull && $0[0].isSame(as: $0[1]) } ?? false
    }

    /// Whether a delta row leaves any group as it is, read or not: no record enters or leaves,
    /// counts and sums move by 0, and each minimum or maximum gets back the extreme that left (a
    /// record of another view's update, in `ViewDeltaSets`' rows, or one whose values came back).
    private func isNeutral(_ delta: [Value]) -> Bool {
        var column = view.groupBy.count + 1
        guard delta.count > column, delta[column - 1].doubleValue == 0 else { return false }
        for aggregate in view.aggregates {
            switch aggregate.function {
            case .count, .sum:
                guard delta[column].doubleValue == 0 else { return false }
                column += 1
            case .avg:
                guard delta[column].doubleValue == 0, delta[column + 1].doubleValue == 0 else { return false }
                column += 2
            case .min, .max:
                guard delta[column].isSame(as: delta[column + 1]) else { return false }
                column += 2
            }
        }
        return true
    }

    /// Applies one group's delta row to its stored row `current` (nil when the view does not have
    /// the group), inserting or deleting the group now and adding an update to `updates`; returns
    /// the group when its minimum or maximum must be recomputed.
    private func apply(delta: [Value], current: [Value]?, updates: inout [[Value]], effect: inout ViewEffect) throws -> [Value]? {
        let groupCount = view.groupBy.count
        let group = Array(delta.prefix(groupCount))
        let rowDelta = delta[groupCount].doubleValue.map { Int64($0) } ?? 0
        // Storage values after the group's own columns: aggregates..., importer_rows.
        guard let current, let handle = current.first, !handle.isNull else {
            guard rowDelta > 0 else {
                if rowDelta == 0 { return nil }
                throw ViewError.outOfSync(view: view.name, reason: "records leave group (\(Self.describe(group))) which the view does not have")
            }
            let (values, needsRecompute) = groupValues(stored: nil, delta: delta, rows: rowDelta)
            try executor.execute(sql.insertGroup, group + values)
            effect.insertedGroups += 1
            return needsRecompute ? group : nil
        }
        let stored = Array(current.dropFirst())
        guard case .integer(let rows) = stored.last ?? .null else { return nil }
        let newRows = rows + rowDelta
        if newRows == 0 {
            try executor.execute(sql.deleteGroup, [handle])
            effect.deletedGroups += 1
            return nil
        }
        guard newRows > 0 else {
            throw ViewError.outOfSync(view: view.name, reason: "group (\(Self.describe(group))) would have \(newRows) records")
        }
        let (values, needsRecompute) = groupValues(stored: stored, delta: delta, rows: newRows)
        if !zip(values, stored).allSatisfy({ $0.isSame(as: $1) }) || needsRecompute {
            updates.append([handle] + values)
            effect.updatedGroups += 1
        }
        return needsRecompute ? group : nil
    }

    private static func describe(_ group: [Value]) -> String {
        group.map(\.description).joined(separator: ", ")
    }

    /// Storage values (aggregates..., rows) of a group after its delta (`stored` is nil for a group
    /// entering the view), and whether a minimum or maximum must be recomputed: when a value that
    /// left the group was at least as extreme as the group's extreme and no value entering the group
    /// (all of which are present at the end of the range) is at least as extreme as it.
    private func groupValues(stored: [Value]?, delta: [Value], rows: Int64) -> ([Value], Bool) {
        var values: [Value] = []
        var needsRecompute = false
        var column = view.groupBy.count + 1
        var index = 0
        func storedNumber(_ offset: Int) -> Double { stored?[index + offset].doubleValue ?? 0 }
        for aggregate in view.aggregates {
            switch aggregate.function {
            case .count:
                values.append(.integer(Int64(storedNumber(0)) + Int64(delta[column].doubleValue ?? 0)))
                column += 1
                index += 1
            case .sum:
                values.append(.real(storedNumber(0) + (delta[column].doubleValue ?? 0)))
                column += 1
                index += 1
            case .avg:
                let sum = storedNumber(1) + (delta[column].doubleValue ?? 0)
                let count = Int64(storedNumber(2)) + Int64(delta[column + 1].doubleValue ?? 0)
                values += [count > 0 ? .real(sum / Double(count)) : .null, .real(sum), .integer(count)]
                column += 2
                index += 3
            case .min, .max:
                let sign = aggregate.function == .max ? 1 : -1
                // `better`: more extreme in the aggregate's order (max: larger; min: smaller).
                func better(_ a: Value, _ b: Value) -> Bool { Value.compare(a, b) * sign > 0 }
                let added = delta[column], removed = delta[column + 1]
                var result = stored?[index] ?? .null
                if !added.isNull && (result.isNull || better(added, result)) { result = added }
                if !removed.isNull && (result.isNull || !better(result, removed)) && (added.isNull || better(removed, added)) {
                    needsRecompute = true
                }
                values.append(result)
                column += 2
                index += 1
            }
        }
        return (values + [.integer(rows)], needsRecompute)
    }
}
