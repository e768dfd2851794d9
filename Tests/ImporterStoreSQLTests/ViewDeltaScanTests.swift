import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterStoreSQL
@testable import ImporterStoreSQLite
import Testing

/// The in-memory deltas of a scan of the change rows give the views what the SQL `GROUP BY` deltas
/// they replace give, for every aggregate (count, count of a column, sum, avg, min, max, over text,
/// real and derived values), multi-column groups and NULL groups; over one transaction and over
/// several; and SQLite's changed-list test matches names whole.
@Suite struct ViewDeltaScanTests {
    static let views = ViewTestModel.views

    /// A deterministic stream of choices (a linear congruential generator).
    struct Choices {
        var state: UInt64
        mutating func next(_ count: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(count))
        }
    }

    /// A feed of `keys` (records sharing years, so groups), their values chosen by `choices`:
    /// NULLs, moves between regions and years' groups, values tying the extremes.
    static func feed(_ keys: [Int], _ choices: inout Choices) -> String {
        let energies = ["null", "\"1.5\"", "\"2.25\"", "\"3\"", "\"-4.5\""]
        let impacts = ["null", "\"0.1\"", "\"0.2\"", "\"0.7\""]
        let locations = ["null,null,null,null", "\"10.5\",\"N\",\"20\",\"E\"", "\"10.5\",\"N\",\"20\",\"W\"", "\"3\",\"S\",\"20\",\"E\""]
        let altitudes = ["null", "\"30\"", "\"55.5\""]
        return fireballFeed(keys.map { key in
            let date = String(format: "%04d-%02d-01 00:00:00", 2020 + key % 3, 1 + key % 12)
            return "[\"\(date)\",\(energies[choices.next(5)]),\(impacts[choices.next(4)]),\(locations[choices.next(4)]),\(altitudes[choices.next(3)]),null]"
        })
    }

    static let model = ViewTestModel.model

    /// Imports feeds 1...3 (views not replayed), the views replayed through 2 unless
    /// `severalTransactions`; returns the change range the views still need.
    static func history(at path: String, in directory: TemporaryDirectory, severalTransactions: Bool) throws -> ClosedRange<Int64> {
        var choices = Choices(state: 7)
        for (index, keys) in [Array(0..<36), Array(0..<30) + Array(36..<42), Array(3..<40)].enumerated() {
            let feed = try directory.write("feed\(index).json", Self.feed(keys, &choices))
            let store = try Store(path: path)
            var options = ImportOptions(author: "test", context: "test", sync: true)
            options.maxUpdated = .percent(100)  // most records revised on purpose
            options.replayViews = index == 0
            _ = try ImportSession(store: store, model: model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
            if index == 1 && !severalTransactions {
                var maintainer = ViewMaintainer(entities: store.entities)
                maintainer.rebuildFactor = 0
                _ = try store.write { (tx: StoreWriteTransaction) throws in try maintainer.replay(views, in: tx) }
            }
        }
        let store = try Store(path: path)
        return try #require(try store.read { try $0.views.changeRange(of: "Fireball", after: severalTransactions ? 1 : 2, through: 3) })
    }

    @Test(arguments: [false, true])
    func scanDeltasGiveTheViewsTheGroupByDeltasGive(severalTransactions: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let scanned = directory.path("scanned.sqlite"), grouped = directory.path("grouped.sqlite")
        let range = try Self.history(at: scanned, in: directory, severalTransactions: severalTransactions)
        try FileManager.default.copyItem(atPath: scanned, toPath: grouped)

        let scanStore = try Store(path: scanned), groupStore = try Store(path: grouped)
        let sqlite = try #require(groupStore.backend as? SQLiteStore)
        let start = Self.views.map { ViewEffect(view: $0.name, fromTransaction: severalTransactions ? 1 : 2, throughTransaction: 3) }
        let scanEffects = try scanStore.write { (tx: StoreWriteTransaction) throws in
            var effects = start
            try tx.views.applyViewChanges(Self.views, changes: range, into: &effects)
            return effects
        }
        let groupEffects = try groupStore.write { (_: StoreWriteTransaction) throws in
            try zip(Self.views, start).map { view, effect in
                var effect = effect
                try ViewDeltaApplier(sql: try sqlite.viewSQL(view), executor: sqlite.executor).apply(range, effect: &effect)
                return effect
            }
        }
        #expect(try sqlite.executor.rows(try sqlite.viewSQL(Self.views[0]).rangeTransactions, [.integer(range.lowerBound), .integer(range.upperBound)])
            .first.map { $0[0] == $0[1] } == !severalTransactions)
        for (view, (scanEffect, groupEffect)) in zip(Self.views, zip(scanEffects, groupEffects)) {
            let scanRows = try scanStore.read { try $0.views.viewRows(view) }
            let groupRows = try groupStore.read { try $0.views.viewRows(view) }
            #expect(Set(scanRows.keys) == Set(groupRows.keys), "\(view.name)")
            for (group, values) in groupRows {
                let got = scanRows[group] ?? []
                #expect(got.count == values.count && zip(got, values).allSatisfy { $0.nearlyEquals($1) },
                        "\(view.name) group \(group): scanned \(got), grouped \(values)")
            }
            #expect(try scanStore.read { try ViewMaintainer(entities: scanStore.entities).verify(view, in: $0) }.isEmpty, "\(view.name)")
            #expect(scanEffect.insertedGroups == groupEffect.insertedGroups && scanEffect.deletedGroups == groupEffect.deletedGroups)
            #expect(scanEffect.recomputedGroups == groupEffect.recomputedGroups)
            #expect(groupEffect.insertedGroups + groupEffect.updatedGroups + groupEffect.deletedGroups > 0, "the history changes \(view.name)")
        }
    }

    @Test func aScanTouchingTooManyGroupsGivesUp() throws {
        let entity = FireballModel.entity
        var scan = ViewDeltaScan(entity: entity, schemas: [ViewSQL(view: FireballModel.byYear, entity: entity, dialect: SQLiteDialect())])
        scan.maximumGroups = 1
        // leaves, enters, then year, energy, impact_energy, latitude over each image.
        let row: (Int64) -> [Value] = { year in [.integer(0), .integer(1), .integer(year), .real(1), .real(1), .null, .null, .null, .null, .null] }
        #expect(scan.width == 10)
        let first = scan.add(row(2020)), second = scan.add(row(2021))
        #expect(first && !second)
    }

    /// Words, lists, and whether the list holds the word (both dialects' `list(_:contains:)`).
    static let listCases: [(String, String, Bool)] = [
        ("energy", "energy", true), ("energy", "impact_energy", false), ("impact_energy", "energy,impact_energy", true),
        ("energy", "energy,impact_energy", true), ("vy", "velocity,vx,vy,vz", true), ("v", "velocity,vx,vy,vz", false),
        ("vz", "velocity,vx,vy,vz", true), ("a*b", "x,a*b", true), ("a*b", "a*bc", false), ("a?", "ab", false), ("a", "", false),
        ("energy", "impact_energy,energy_x", false), ("energy", "impact_energy,energy", true), ("a_b", "axb", false), ("a%", "ab", false),
    ]

    @Test(arguments: listCases)
    func changedListsMatchNamesWhole(word: String, list: String, contains: Bool) throws {
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        let sql = "SELECT \(SQLiteDialect().list("?1", contains: word))"
        #expect(try connection.integer(sql, [.text(list)]) == (contains ? 1 : 0))
    }
}
