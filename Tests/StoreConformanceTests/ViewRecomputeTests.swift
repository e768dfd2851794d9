import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Groups whose maximum left them are recomputed from the entity table, each into its own group,
/// however many there are (a hundred per scan of the table), a NULL group too: on both backends.
@Suite struct ViewRecomputeTests {
    typealias Backend = BackendConformanceTests.Backend

    static let byLatitude = ViewDefinition(name: "by_latitude_extremes", entity: "Fireball", groupBy: ["latitude"], aggregates: [
        Aggregate(name: "energy_max", function: .max, attribute: "energy"),
        Aggregate(name: "count", function: .count),
    ])
    static let model = Model(entities: [FireballModel.entity], feeds: [FireballModel.apiFeed], views: [byLatitude])

    /// Two records per latitude: the even key holds the group's maximum energy until the second
    /// feed lowers it below the odd key's, which only a recomputation finds. The last two records
    /// have no latitude: their group is NULL.
    static func feed(evenEnergy: String, groups: Int) -> String {
        fireballFeed((0..<(2 * groups)).map { key in
            let date = String(format: "2020-%02d-%02d %02d:%02d:00", 1 + key % 12, 1 + key / 12 % 28, key / 336, key % 60)
            let energy = key % 2 == 0 ? evenEnergy : "3"
            let location = key / 2 == groups - 1 ? "null,null,null,null" : "\"\(Double(key / 2) * 0.25 + 0.25)\",\"N\",\"20\",\"E\""
            return "[\"\(date)\",\"\(energy)\",\"0.1\",\(location),null,null]"
        })
    }

    @Test(arguments: Backend.allCases)
    func everyGroupThatLostItsMaximumIsRecomputed(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        let groups = 150
        for (index, energy) in ["5", "1"].enumerated() {
            let feed = try directory.write("feed\(index).json", Self.feed(evenEnergy: energy, groups: groups))
            var options = ImportOptions(author: "test", context: "test", sync: false)
            options.replayViews = index == 0
            let result = try ImportSession(store: store, model: Self.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
            #expect(result.totals.inserted + result.totals.updated == (index == 0 ? 2 * groups : groups))
        }
        var maintainer = ViewMaintainer(entities: store.entities)
        maintainer.rebuildFactor = 0
        let effect = try store.write { (tx: StoreWriteTransaction) throws in try maintainer.replay(Self.byLatitude, in: tx) }
        #expect(effect.recomputedGroups == groups)
        #expect(try store.read { try maintainer.verify(Self.byLatitude, in: $0) }.isEmpty)
        let rows = try store.read { try $0.views.viewRows(Self.byLatitude) }
        #expect(rows.count == groups)
        #expect(rows.values.allSatisfy { $0.first?.doubleValue == 3 }, "each group's maximum is now its odd record's 3")
        #expect(rows[[.null]] != nil, "the records without a latitude make a group of their own")
    }
}
