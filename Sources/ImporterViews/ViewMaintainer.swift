import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore

/// Keeps derived views equal to their definition over the entity table, incrementally from history.
///
/// Replay reads the view's entity's change rows after the view's token and, per group they touch,
/// applies the change in record count and aggregates (a before-image leaves its group, an
/// after-image enters one): cost follows the changes, not the table. Sums and counts apply exactly;
/// a minimum or maximum that leaves its group is recomputed from the entity table for that group
/// only. The view's rows and its token are written in the caller's transaction (GRDB style: each
/// method takes the handle it works in): exactly once.
public struct ViewMaintainer {
    /// The store's entities, as registered (the tables the views read).
    public let entities: [EntityDescription]
    /// A view is rebuilt instead of replayed when its delta's change rows × this factor exceed its
    /// entity's records; 0 always replays the delta (tests use it to exercise that path).
    public var rebuildFactor: Int64 = 3

    public init(entities: [EntityDescription]) {
        self.entities = entities
    }

    func entity(of view: ViewDefinition) throws -> EntityDescription {
        guard let entity = entities.first(where: { $0.name == view.entity }) else {
            throw StoreError.incompatibleModel(entity: view.entity, reason: "view \(view.name) reads an entity the store does not hold")
        }
        return entity
    }

    /// Replays `view` from its token through the head, in `tx`. Throws `HistoryError.expiredToken`
    /// when the history it needs is purged.
    ///
    /// Always to the head: a minimum or maximum recomputed from the entity table reflects the
    /// table now, so a view is exact once its token is the head.
    public func replay(_ view: ViewDefinition, in tx: StoreWriteTransaction) throws -> ViewEffect {
        guard let effect = try replay([view], in: tx).first else { throw ViewError.unknownView(view.name) }
        return effect
    }

    /// Replays views through the head; views whose delta is as large as a good part of their table
    /// are rebuilt instead, together (one scan per entity), and views of one entity with the same
    /// delta are replayed together (one scan of it, on SQLite). A view whose token expired is
    /// passed to `onExpired` and skipped; without `onExpired`, the first expired view throws.
    public func replay(_ views: [ViewDefinition], in tx: StoreWriteTransaction, onExpired: ((HistoryError) -> Void)? = nil) throws -> [ViewEffect] {
        let head = try tx.history.lastTransactionNumber()
        var plan = ReplayPlan(head: head, consumers: try tx.snapshot.allConsumers(), purgedThrough: try tx.history.purgedThrough())
        var effects: [String: ViewEffect] = [:]
        var rebuild: [(ViewDefinition, Int64)] = []
        var deltas: [DeltaKey: [ViewDefinition]] = [:]
        var replayed: [String] = []
        for view in views {
            guard let consumer = plan.consumers[view.name] else { throw HistoryError.unknownConsumer(view.name) }
            do {
                try consumer.checkNotExpired(purgedThrough: plan.purgedThrough)
            } catch let error as HistoryError where onExpired != nil {
                onExpired?(error)
                continue
            }
            effects[view.name] = ViewEffect(view: view.name, fromTransaction: consumer.tokenNumber, throughTransaction: max(head, consumer.tokenNumber))
            guard head > consumer.tokenNumber else { continue }
            guard let range = try plan.changeRange(of: view.entity, after: consumer.tokenNumber, in: tx) else {
                replayed.append(view.name)
                continue
            }
            if try isBetterRebuilt(view, delta: range, plan: &plan, in: tx) {
                rebuild.append((view, consumer.tokenNumber))
            } else {
                deltas[DeltaKey(entity: view.entity, range: range), default: []].append(view)
                replayed.append(view.name)
            }
        }
        for (key, group) in deltas {
            var applied = group.map { effects[$0.name] ?? ViewEffect(view: $0.name, fromTransaction: 0, throughTransaction: head) }
            try tx.views.applyViewChanges(group, changes: key.range, into: &applied)
            for effect in applied { effects[effect.view] = effect }
        }
        for name in replayed { try tx.setConsumerToken(name, to: head) }
        for (var effect, (_, from)) in zip(try self.rebuild(rebuild.map(\.0), in: tx), rebuild) {
            effect.fromTransaction = from
            effects[effect.view] = effect
        }
        return views.compactMap { effects[$0.name] }
    }

    /// What one `replay` call reads once for all its views: the consumers, the purge point, and per
    /// entity its change range after a token and its record count's upper bound (views of one
    /// entity usually share a token, and each read is a round trip to PostgreSQL).
    private struct ReplayPlan {
        let head: Int64
        let consumers: [String: Consumer]
        let purgedThrough: Int64
        private var ranges: [RangeKey: ClosedRange<Int64>?] = [:]
        private var upperBounds: [String: Int64] = [:]

        init(head: Int64, consumers: [Consumer], purgedThrough: Int64) {
            self.head = head
            self.consumers = Dictionary(consumers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            self.purgedThrough = purgedThrough
        }

        private struct RangeKey: Hashable {
            let entity: String
            let token: Int64
        }

        mutating func changeRange(of entity: String, after token: Int64, in tx: StoreWriteTransaction) throws -> ClosedRange<Int64>? {
            let key = RangeKey(entity: entity, token: token)
            if let range = ranges[key] { return range }
            let range = try tx.views.changeRange(of: entity, after: token, through: head)
            ranges[key] = .some(range)
            return range
        }

        mutating func recordCountUpperBound(of entity: EntityDescription, in tx: StoreWriteTransaction) throws -> Int64 {
            if let bound = upperBounds[entity.name] { return bound }
            let bound = try tx.views.recordCountUpperBound(of: entity)
            upperBounds[entity.name] = bound
            return bound
        }
    }

    /// Views replayed together: of one entity, over the same change rows.
    private struct DeltaKey: Hashable {
        let entity: String
        let range: ClosedRange<Int64>
    }

    /// Whether the view's delta is as large as a good part of its table: it costs more than
    /// recomputing the view (a change row costs more than a table row; figures: Docs/PERFORMANCE.md,
    /// "Measurements behind the code"). The table is only counted when the delta could be that
    /// large: ids are never reused, so the last one assigned bounds the record count from above,
    /// for free.
    private func isBetterRebuilt(_ view: ViewDefinition, delta range: ClosedRange<Int64>, plan: inout ReplayPlan, in tx: StoreWriteTransaction) throws -> Bool {
        let entity = try entity(of: view)
        let weight = Int64(range.count) * rebuildFactor
        guard rebuildFactor > 0, weight > (try plan.recordCountUpperBound(of: entity, in: tx)) else { return false }
        return weight > Int64(try tx.records.recordCount(of: entity))
    }

    /// Recomputes `view` from the entity table and moves its token to the head, in `tx`.
    public func rebuild(_ view: ViewDefinition, in tx: StoreWriteTransaction) throws -> ViewEffect {
        guard let effect = try rebuild([view], in: tx).first else { throw ViewError.unknownView(view.name) }
        return effect
    }

    /// Recomputes views from their entity tables (one scan per entity for all its views) and moves
    /// their tokens to the head, in `tx`.
    public func rebuild(_ views: [ViewDefinition], in tx: StoreWriteTransaction) throws -> [ViewEffect] {
        let head = try tx.history.lastTransactionNumber()
        for view in views { _ = try entity(of: view) }
        let before = try views.map(tx.views.viewRows)
        try tx.views.rebuildViews(views)
        var effects: [String: ViewEffect] = [:]
        for (view, before) in zip(views, before) {
            let after = try tx.views.viewRows(view)
            var effect = ViewEffect(view: view.name, fromTransaction: try tx.snapshot.consumer(named: view.name).tokenNumber,
                                    throughTransaction: head)
            effect.rebuilt = true
            for (group, values) in after {
                guard let old = before[group] else { effect.insertedGroups += 1; continue }
                if !zip(old, values).allSatisfy({ $0.nearlyEquals($1) }) { effect.updatedGroups += 1 }
            }
            effect.deletedGroups = before.keys.filter { after[$0] == nil }.count
            try tx.setConsumerToken(view.name, to: head)
            effects[view.name] = effect
        }
        return views.compactMap { effects[$0.name] }
    }

    /// Compares the view with a full recomputation, as `snapshot` sees them; returns every difference.
    public func verify(_ view: ViewDefinition, in snapshot: StoreSnapshot) throws -> [ViewDifference] {
        _ = try entity(of: view)
        let columns = view.storageColumns
        let groupCount = view.groupBy.count
        let incremental = try snapshot.views.viewRows(view)
        let recomputed = try snapshot.views.recomputedViewRows(view)
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
    public func rows(_ view: ViewDefinition, in snapshot: StoreSnapshot) throws -> (columns: [String], rows: [[Value]]) {
        _ = try entity(of: view)
        return try snapshot.views.orderedViewRows(view)
    }
}
