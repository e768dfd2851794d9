import Foundation

/// Keeps derived views equal to their definition over the entity table, incrementally from history.
///
/// Replay reads the view's entity's change rows after the view's token and, per group they touch,
/// applies the change in record count and aggregates (a before-image leaves its group, an
/// after-image enters one): cost follows the changes, not the table. Sums and counts apply exactly;
/// a minimum or maximum that leaves its group is recomputed from the entity table for that group
/// only. The view's rows and its token are written in the caller's transaction: exactly once.
public struct ViewMaintainer {
    public let store: Store
    /// A view is rebuilt instead of replayed when its delta's change rows × this factor exceed its
    /// entity's records; 0 always replays the delta (tests use it to exercise that path).
    public var rebuildFactor: Int64 = 3

    public init(store: Store) {
        self.store = store
    }

    func schema(_ view: ViewDefinition) throws -> ViewSchema {
        guard let entity = store.entity(named: view.entity) else {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name) reads an entity the store does not hold")
        }
        return ViewSchema(view: view, entity: entity)
    }

    /// Replays `view` from its token through the head. Call inside a write transaction. Throws
    /// `HistoryError.expiredToken` when the history it needs is purged.
    ///
    /// Always to the head: a minimum or maximum recomputed from the entity table reflects the
    /// table now, so a view is exact once its token is the head.
    public func replay(_ view: ViewDefinition) throws -> ViewEffect {
        guard let effect = try replay([view]).first else { throw ViewError.unknownView(view.name) }
        return effect
    }

    /// Replays views through the head; views whose delta is as large as a good part of their table
    /// are rebuilt instead, together (one scan per entity). A view whose token expired is passed to
    /// `onExpired` and skipped; without `onExpired`, the first expired view throws.
    public func replay(_ views: [ViewDefinition], onExpired: ((HistoryError) -> Void)? = nil) throws -> [ViewEffect] {
        let registry = ConsumerRegistry(store: store)
        let head = try store.lastTransactionNumber()
        var effects: [String: ViewEffect] = [:]
        var rebuild: [(ViewDefinition, Int64)] = []
        for view in views {
            let consumer = try registry.consumer(named: view.name)
            do {
                try registry.checkNotExpired(consumer)
            } catch let error as HistoryError where onExpired != nil {
                onExpired?(error)
                continue
            }
            var effect = ViewEffect(view: view.name, fromTransaction: consumer.tokenNumber, throughTransaction: max(head, consumer.tokenNumber))
            guard head > consumer.tokenNumber else {
                effects[view.name] = effect
                continue
            }
            let schema = try schema(view)
            if let range = try store.backend.changeIDs(of: view.entity, after: consumer.tokenNumber, through: head) {
                // A delta as large as a good part of the table costs more than recomputing the view
                // (measured: ~1.3 µs per change row against ~0.5 µs per table row). The table is
                // only counted when the delta could be that large: ids are never reused, so the last
                // one assigned bounds the record count from above, for free.
                let table = schema.entity.tableName
                if rebuildFactor > 0, Int64(range.count) * rebuildFactor > (try EntitySchema.lastAssignedID(table, in: store.connection)),
                   Int64(range.count) * rebuildFactor > (try store.connection.integer("SELECT count(*) FROM \(SQLIdentifier.quoted(table))")) {
                    rebuild.append((view, consumer.tokenNumber))
                    continue
                }
                try apply(schema, range: range, effect: &effect)
            }
            try registry.setToken(view.name, to: head)
            effects[view.name] = effect
        }
        for (var effect, (_, from)) in zip(try self.rebuild(rebuild.map(\.0)), rebuild) {
            effect.fromTransaction = from
            effects[effect.view] = effect
        }
        return views.compactMap { effects[$0.name] }
    }

    /// Recomputes `view` from the entity table and moves its token to the head. Call inside a write
    /// transaction.
    public func rebuild(_ view: ViewDefinition) throws -> ViewEffect {
        guard let effect = try rebuild([view]).first else { throw ViewError.unknownView(view.name) }
        return effect
    }

    /// Recomputes views from their entity tables (one scan per entity for all its views) and moves
    /// their tokens to the head. Call inside a write transaction.
    public func rebuild(_ views: [ViewDefinition]) throws -> [ViewEffect] {
        let head = try store.lastTransactionNumber()
        let registry = ConsumerRegistry(store: store)
        let schemas = try views.map(schema)
        var effects: [String: ViewEffect] = [:]
        for group in Dictionary(grouping: schemas, by: { $0.entity.name }).values {
            guard let entity = group.first?.entity else { continue }
            let computed = try ViewAggregator(entity: entity, schemas: group).compute(store.connection)
            for (index, schema) in group.enumerated() {
                let before = try groups(schema)
                if let rows = computed?[index] {
                    try store.connection.execute("DELETE FROM \(schema.table)")
                    let insert = try store.connection.prepare(schema.insertGroup)
                    for (key, values) in rows { try insert.execute(key + values) }
                } else {
                    // Too many groups to hold: SQL groups them, spilling to disk.
                    for statement in schema.rebuild { try store.connection.execute(statement) }
                }
                let after = try groups(schema)
                var effect = ViewEffect(view: schema.view.name, fromTransaction: try registry.consumer(named: schema.view.name).tokenNumber, throughTransaction: head)
                effect.rebuilt = true
                for (group, values) in after {
                    guard let old = before[group] else { effect.insertedGroups += 1; continue }
                    if !zip(old, values).allSatisfy({ $0.nearlyEquals($1) }) { effect.updatedGroups += 1 }
                }
                effect.deletedGroups = before.keys.filter { after[$0] == nil }.count
                try registry.setToken(schema.view.name, to: head)
                effects[schema.view.name] = effect
            }
        }
        return views.compactMap { effects[$0.name] }
    }

    /// The view's rows by group (all storage columns).
    private func groups(_ schema: ViewSchema) throws -> [[Value]: [Value]] {
        let count = schema.view.groupBy.count
        var rows: [[Value]: [Value]] = [:]
        for row in try store.connection.rows("SELECT \(schema.allColumns.map(ViewSchema.q).joined(separator: ", ")) FROM \(schema.table)") {
            rows[Array(row.prefix(count))] = Array(row.dropFirst(count))
        }
        return rows
    }

    /// Compares the view with a full recomputation; returns every difference.
    public func verify(_ view: ViewDefinition) throws -> [ViewDifference] {
        let schema = try schema(view)
        let columns = schema.allColumns
        let groupCount = view.groupBy.count
        let incremental = try groups(schema)
        var recomputed: [[Value]: [Value]] = [:]
        for row in try store.connection.rows(schema.recomputation) { recomputed[Array(row.prefix(groupCount))] = Array(row.dropFirst(groupCount)) }
        var differences: [ViewDifference] = []
        for group in Set(incremental.keys).union(recomputed.keys).sorted(by: { Value.compare($0.first ?? .null, $1.first ?? .null) < 0 }) {
            let a = incremental[group], b = recomputed[group]
            for (offset, column) in columns.dropFirst(groupCount).enumerated() {
                let x = a?[offset], y = b?[offset]
                if let x, let y, x.nearlyEquals(y) { continue }
                differences.append(ViewDifference(view: view.name, group: group, column: column, incremental: x, recomputed: y))
            }
        }
        return differences
    }

    /// The view's rows, ordered by group.
    public func rows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) {
        let schema = try schema(view)
        let columns = view.groupBy + view.aggregates.map(\.name)
        let rows = try store.connection.rows("SELECT \(columns.map(ViewSchema.q).joined(separator: ", ")) FROM \(schema.table) ORDER BY \(view.groupBy.map(ViewSchema.q).joined(separator: ", "))")
        return (columns, rows)
    }

    /// Applies the per-group deltas of the change rows in `range` to the view table.
    private func apply(_ schema: ViewSchema, range: ClosedRange<Int64>, effect: inout ViewEffect) throws {
        let view = schema.view
        let groupCount = view.groupBy.count
        let connection = store.connection
        let select = try connection.prepare(schema.selectGroup)
        let insert = try connection.prepare(schema.insertGroup)
        let update = try connection.prepare(schema.updateGroup)
        let delete = try connection.prepare(schema.deleteGroup)
        var recompute: [[Value]] = []
        let deltas = try connection.rows(schema.delta, [.integer(range.lowerBound), .integer(range.upperBound)])
        for delta in deltas {
            let group = Array(delta.prefix(groupCount))
            let rowDelta = delta[groupCount].doubleValue.map { Int64($0) } ?? 0
            let current = try select.rows(group).first
            // Storage values after the group's own columns: aggregates..., importer_rows.
            guard let current, case .integer(let rowid) = current[0] else {
                guard rowDelta > 0 else {
                    if rowDelta == 0 { continue }
                    throw ViewError.outOfSync(view: view.name, reason: "records leave group (\(group.map(\.description).joined(separator: ", "))) which the view does not have")
                }
                let (values, needsRecompute) = groupValues(schema, stored: nil, delta: delta, rows: rowDelta)
                try insert.execute(group + values)
                if needsRecompute { recompute.append(group) }
                effect.insertedGroups += 1
                continue
            }
            let stored = Array(current.dropFirst())
            guard case .integer(let rows) = stored.last ?? .null else { continue }
            let newRows = rows + rowDelta
            if newRows == 0 {
                try delete.execute([.integer(rowid)])
                effect.deletedGroups += 1
                continue
            }
            guard newRows > 0 else {
                throw ViewError.outOfSync(view: view.name, reason: "group (\(group.map(\.description).joined(separator: ", "))) would have \(newRows) records")
            }
            let (values, needsRecompute) = groupValues(schema, stored: stored, delta: delta, rows: newRows)
            if needsRecompute { recompute.append(group) }
            if !zip(values, stored).allSatisfy({ $0.isSame(as: $1) }) || needsRecompute {
                try update.execute([.integer(rowid)] + values)
                effect.updatedGroups += 1
            }
        }
        if !recompute.isEmpty {
            let full = try connection.prepare(schema.recomputeGroup)
            for group in recompute {
                guard let row = try full.rows(group).first else { continue }
                try update.execute([try select.rows(group).first?[0] ?? .null] + Array(row.dropFirst(groupCount)))
                effect.recomputedGroups += 1
            }
        }
    }

    /// Storage values (aggregates..., rows) of a group after its delta (`stored` is nil for a group
    /// entering the view), and whether a minimum or maximum must be recomputed: when a value that
    /// left the group was at least as extreme as the group's extreme and no value entering the group
    /// (all of which are present at the end of the range) is at least as extreme as it.
    private func groupValues(_ schema: ViewSchema, stored: [Value]?, delta: [Value], rows: Int64) -> ([Value], Bool) {
        var values: [Value] = []
        var needsRecompute = false
        var column = schema.view.groupBy.count + 1
        var index = 0
        func storedNumber(_ offset: Int) -> Double { stored?[index + offset].doubleValue ?? 0 }
        for aggregate in schema.view.aggregates {
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

/// A view that no longer matches its history (a bug, or a store edited by hand): rebuild it.
public enum ViewError: Error, Sendable, Equatable, CustomStringConvertible {
    case outOfSync(view: String, reason: String)
    case unknownView(String)

    public var description: String {
        switch self {
        case .outOfSync(let view, let reason): "view \(view) is out of sync with history (\(reason)); run: importer views rebuild \(view)"
        case .unknownView(let name): "no view named '\(name)' (see importer views list)"
        }
    }
}
