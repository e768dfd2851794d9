import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterStorePostgres
@testable import ImporterStoreSQL
import PostgresTestSupport
import Testing

/// The deltas of all the views of an entity from one `GROUPING SETS` statement (PostgreSQL's
/// replay) give the views what each view's own `GROUP BY` delta gives: every aggregate (over stored
/// and derived attributes: `ViewDeltaScanTests.views`), multi-column and NULL groups, views sharing
/// a grouping set (the same groups, in another order too); over one transaction and over several;
/// on a real server.
@Suite struct ViewDeltaSetsTests {
    static let views: [ViewDefinition] = ViewDeltaScanTests.views + [
        ViewDefinition(name: "by_year_region", entity: "Fireball", groupBy: ["year", "region"], aggregates: [
            Aggregate(name: "count", function: .count),
            Aggregate(name: "energy_sum", function: .sum, attribute: "energy"),
        ]),
        ViewDefinition(name: "by_year_altitude", entity: "Fireball", groupBy: ["year"], aggregates: [
            Aggregate(name: "altitude_max", function: .max, attribute: "altitude"),
            Aggregate(name: "altitude_avg", function: .avg, attribute: "altitude"),
        ]),
    ]
    static let model = Model(entities: [FireballModel.entity], feeds: [FireballModel.apiFeed], views: views)

    /// A new store on the test cluster, and its PostgreSQL backend.
    static func newStore() throws -> (Store, PostgresStore) {
        let store = try Store.open(try PostgresTestCluster.start().newStoreURL())
        return (store, try #require(store.backend as? PostgresStore))
    }

    @Test(arguments: [false, true])
    func groupingSetDeltasGiveTheViewsWhatEachViewsOwnDeltaGives(severalTransactions: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, postgres) = try Self.newStore()
        var choices = ViewDeltaScanTests.Choices(state: 7)
        for (index, keys) in [Array(0..<36), Array(0..<30) + Array(36..<42), Array(3..<40)].enumerated() {
            let feed = try directory.write("feed\(index).json", ViewDeltaScanTests.feed(keys, &choices))
            var options = ImportOptions(author: "test", context: "test", sync: true)
            options.maxUpdated = .percent(100)  // most records revised on purpose
            options.replayViews = index == 0 || (index == 1 && !severalTransactions)
            _ = try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
        }
        let range = try #require(try store.read { try $0.views.changeRange(of: "Fireball", after: severalTransactions ? 1 : 2, through: 3) })
        let start = Self.views.map { ViewEffect(view: $0.name, fromTransaction: severalTransactions ? 1 : 2, throughTransaction: 3) }

        // Each view by its own delta, rolled back.
        let (ownEffects, ownRows) = try store.inTransaction { (tx: StoreWriteTransaction) throws -> TransactionCompletion<([ViewEffect], [[[Value]: [Value]]])> in
            let effects = try zip(Self.views, start).map { view, effect in
                var effect = effect
                try ViewDeltaApplier(sql: try postgres.viewSQL(view), executor: postgres.executor).apply(range, effect: &effect)
                return effect
            }
            return .rollback((effects, try Self.views.map { try tx.views.viewRows($0) }))
        }
        // All of them from one statement.
        let setEffects = try store.write { (tx: StoreWriteTransaction) throws -> [ViewEffect] in
            var effects = start
            try tx.views.applyViewChanges(Self.views, changes: range, into: &effects)
            return effects
        }
        for (index, view) in Self.views.enumerated() {
            let rows = try store.read { try $0.views.viewRows(view) }
            #expect(Set(rows.keys) == Set(ownRows[index].keys), "\(view.name)")
            for (group, values) in ownRows[index] {
                let got = rows[group] ?? []
                #expect(got.count == values.count && zip(got, values).allSatisfy { $0.nearlyEquals($1) },
                        "\(view.name) group \(group): grouping sets \(got), own delta \(values)")
            }
            #expect(try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }.isEmpty, "\(view.name)")
            let (own, sets) = (ownEffects[index], setEffects[index])
            #expect(sets.insertedGroups == own.insertedGroups && sets.updatedGroups == own.updatedGroups && sets.deletedGroups == own.deletedGroups,
                    "\(view.name): \(sets) against \(own)")
            // Another view's update brings the extreme it holds in as well as out, which can spare a recompute.
            #expect(sets.recomputedGroups <= own.recomputedGroups)
            #expect(own.insertedGroups + own.updatedGroups + own.deletedGroups > 0, "the history changes \(view.name)")
        }
    }

    /// Updates of attributes a view does not read leave it exactly as it was, though the views
    /// that read them are replayed from the same rows: none of its groups is read or written, and
    /// its sums keep every bit (the rows of a record that stays in its groups add `new - old`,
    /// exactly 0 for an unchanged value). Over one transaction and over several.
    @Test(arguments: [false, true])
    func aViewTheUpdatesDoNotReadIsNeitherReadNorWritten(severalTransactions: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, postgres) = try Self.newStore()
        let impacts = ["0.1", "0.7", "1.3", "2.9", "0.30000000000000004"]
        for (index, energy) in ["1.1", "2.7", "3.3"].enumerated() {
            let rows = (0..<60).map { (key: Int) -> String in
                let date = String(format: "%04d-%02d-01 00:00:00", 2000 + key % 7, 1 + key % 12)
                let location = key % 5 == 0 ? "null,null,null,null" : "\"\(key % 80)\",\"\(key % 2 == 0 ? "N" : "S")\",\"\(key)\",\"\(key % 3 == 0 ? "E" : "W")\""
                return "[\"\(date)\",\"\(Double(key) * 0.37 + Double(energy)!)\",\"\(impacts[key % impacts.count])\",\(location),null,null]"
            }
            let feed = try directory.write("feed\(index).json", fireballFeed(rows))
            var options = ImportOptions(author: "test", context: "test", sync: false)
            options.maxUpdated = .percent(100)  // most records revised on purpose
            options.replayViews = index == 0 || (index == 1 && !severalTransactions)
            _ = try ImportSession(store: store, model: FireballModel.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
        }
        let views = FireballModel.model.views
        let region = try #require(views.firstIndex { !$0.storedAttributes(of: FireballModel.entity).contains("energy") })
        let before = try store.read { try $0.views.viewRows(views[region]) }
        let range = try #require(try store.read { try $0.views.changeRange(of: "Fireball", after: severalTransactions ? 1 : 2, through: 3) })
        let statements = try store.write { (tx: StoreWriteTransaction) throws -> Int in
            let sets = try #require(ViewDeltaSets(schemas: try views.map { try postgres.viewSQL($0) }))
            let rows = try postgres.executor.rows(sets.query(oneTransaction: !severalTransactions), [.integer(range.lowerBound), .integer(range.upperBound)])
            let deltas = try sets.deltaRows(rows)
            #expect(deltas[region].count == before.count, "the rows of the set reach every group of the view")
            let counting = CountingExecutor(base: postgres.executor)
            var effect = ViewEffect(view: views[region].name, fromTransaction: 1, throughTransaction: 3)
            try ViewDeltaApplier(sql: sets.schemas[region], executor: counting).apply(deltas: deltas[region], effect: &effect)
            #expect(effect.insertedGroups + effect.updatedGroups + effect.deletedGroups + effect.recomputedGroups == 0)
            var others = views.map { ViewEffect(view: $0.name, fromTransaction: 1, throughTransaction: 3) }
            try tx.views.applyViewChanges(views, changes: range, into: &others)
            #expect(others.contains { $0.updatedGroups > 0 }, "the energies changed the views that read them")
            return counting.statements
        }
        #expect(statements == 0)
        let after = try store.read { try $0.views.viewRows(views[region]) }
        #expect(after == before, "every value of the view, bit for bit")
        for view in views {
            #expect(try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }.isEmpty, "\(view.name)")
        }
    }

    /// PostgreSQL's `list(_:contains:)` (a substring search, then the word between commas) matches
    /// names whole, as SQLite's does; a NULL list (inserts, deletes) holds nothing.
    @Test func changedListsMatchNamesWholeOnPostgreSQL() throws {
        let (_, postgres) = try Self.newStore()
        for (word, list, contains) in ViewDeltaScanTests.listCases {
            let sql = "SELECT CASE WHEN \(PostgresDialect().list("CAST($1 AS text)", contains: word)) THEN 1 ELSE 0 END"
            #expect(try postgres.connection.integer(sql, [.text(list)]) == (contains ? 1 : 0), "\(word) in \(list)")
        }
        let null = "SELECT CASE WHEN \(PostgresDialect().list("CAST(NULL AS text)", contains: "energy")) THEN 1 ELSE 0 END"
        #expect(try postgres.connection.integer(null) == 0)
    }

    /// The statements run through an executor, counted.
    final class CountingExecutor: SQLExecutor {
        let base: any SQLExecutor
        private(set) var statements = 0
        init(base: any SQLExecutor) { self.base = base }
        func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] { statements += 1; return try base.rows(sql, arguments) }
        func execute(_ sql: String, _ arguments: [Value]) throws { statements += 1; try base.execute(sql, arguments) }
        func affected(_ sql: String, _ arguments: [Value]) throws -> Int { statements += 1; return try base.affected(sql, arguments) }
    }

    /// A range past `PostgresStore.parallelRange` is scanned with the parallel settings, which are
    /// set back right after; the views still equal their recomputation.
    @Test func aLargeRangeIsReplayedWithParallelWorkersAndTheSettingsAreSetBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, postgres) = try Self.newStore()
        let count = Int(PostgresStore.parallelRange) + 100
        for (index, energy) in ["1.5", "2.5"].enumerated() {
            let rows = (0..<count).map { (key: Int) -> String in
                // One record per hour, from 2000-01-01: distinct keys.
                let date = String(format: "%04d-%02d-%02d %02d:00:00", 2000 + key / 8064, 1 + key / 672 % 12, 1 + key / 24 % 28, key % 24)
                return "[\"\(date)\",\"\(energy)\",\"0.1\",null,null,null,null,null,null]"
            }
            let feed = try directory.write("feed\(index).json", fireballFeed(rows))
            var options = ImportOptions(author: "test", context: "test", sync: false)
            options.maxUpdated = .percent(100)  // most records revised on purpose
            options.replayViews = index == 0
            _ = try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
        }
        let range = try #require(try store.read { try $0.views.changeRange(of: "Fireball", after: 1, through: 2) })
        #expect(range.count >= Int(PostgresStore.parallelRange))
        let setting = try store.write { (tx: StoreWriteTransaction) throws -> Int64 in
            var effects = Self.views.map { ViewEffect(view: $0.name, fromTransaction: 1, throughTransaction: 2) }
            try tx.views.applyViewChanges(Self.views, changes: range, into: &effects)
            #expect(effects.contains { $0.updatedGroups > 0 })
            return try postgres.connection.integer("SELECT current_setting('parallel_setup_cost')::bigint")
        }
        #expect(setting == 1000, "the server's default again after the statement")
        for view in Self.views {
            #expect(try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }.isEmpty, "\(view.name)")
        }
    }

    /// Views with the same groups share a set, whatever their order; each row goes to every view
    /// of its set, groups in the view's own order, with the view's own aggregate columns.
    @Test func rowsGoToTheViewsOfTheirSetGroupsInEachViewsOrder() throws {
        let entity = FireballModel.entity
        let region = ViewDefinition(name: "r", entity: "Fireball", groupBy: ["region"], aggregates: [Aggregate(name: "n", function: .count)])
        let regionYear = ViewDefinition(name: "ry", entity: "Fireball", groupBy: ["region", "year"], aggregates: [Aggregate(name: "n", function: .count)])
        let yearRegion = ViewDefinition(name: "yr", entity: "Fireball", groupBy: ["year", "region"],
                                        aggregates: [Aggregate(name: "m", function: .max, attribute: "energy")])
        let sets = try #require(ViewDeltaSets(schemas: [region, regionYear, yearRegion].map { ViewSQL(view: $0, entity: entity, dialect: PostgresDialect()) }))
        let query = sets.query(oneTransaction: true)
        #expect(query.components(separatedBy: "GROUPING SETS ((").count == 2 && query.hasSuffix("))"))
        // Columns: GROUPING(region, year), region, year, then r: rows, n; ry: rows, n; yr: rows, m added, m removed.
        func row(_ bits: Int64, _ region: Value, _ year: Value) -> [Value] {
            [.integer(bits), region, year, .integer(1), .integer(2), .integer(3), .integer(4), .integer(5), .real(6), .real(7)]
        }
        let split = try sets.deltaRows([row(1, .text("NE"), .null), row(0, .text("SW"), .integer(2020))])
        #expect(split[0] == [[.text("NE"), .integer(1), .integer(2)]])
        #expect(split[1] == [[.text("SW"), .integer(2020), .integer(3), .integer(4)]])
        #expect(split[2] == [[.integer(2020), .text("SW"), .integer(5), .real(6), .real(7)]])
        #expect(throws: StoreError.self) { try sets.deltaRows([row(2, .null, .integer(2020))]) }
    }
}
