import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Replay follows history into the views; rebuild and verify agree with it.
@Suite struct ViewMaintainerTests {
    private func row(_ date: String, energy: String, lat: String?) -> String {
        let location = lat.map { #""\#($0)","N","10.0","E""# } ?? "null,null,null,null"
        return #"["\#(date)","\#(energy)","0.1",\#(location),null,null]"#
    }

    @Test func replayMovesRecordsBetweenGroupsAndDropsEmptyOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let first = try directory.write("a.json", fireballFeed([
            row("2020-01-01 00:00:00", energy: "1.0", lat: "5.0"), row("2021-01-01 00:00:00", energy: "2.0", lat: nil),
            row("2021-06-01 00:00:00", energy: "3.0", lat: "6.0"),
        ]))
        try importFeeds([first], into: path)
        let store = try Store(path: path)
        let maintainer = ViewMaintainer(entities: store.entities)
        let views = try store.read { try $0.allViews() }
        let byYear = try #require(views.first { $0.name == "fireball_by_year" })
        _ = try store.write { try maintainer.rebuild(views, in: $0) }
        #expect(try store.read { try maintainer.rows(byYear, in: $0) }.rows.map { $0.prefix(2).map(\.description) } == [["2020", "1"], ["2021", "2"]])

        // 2020's only record goes; a 2021 record gains a location; a 2022 record arrives.
        let second = try directory.write("b.json", fireballFeed([
            row("2021-01-01 00:00:00", energy: "2.0", lat: "7.0"), row("2021-06-01 00:00:00", energy: "3.0", lat: "6.0"),
            row("2022-03-01 00:00:00", energy: "4.0", lat: nil),
        ]))
        _ = try importFeeds([second], into: path, sync: true) { $0.replayViews = false }
        let reopened = try Store(path: path)
        var replayed = ViewMaintainer(entities: reopened.entities)
        replayed.rebuildFactor = 0
        let effect = try reopened.write { try replayed.replay(byYear, in: $0) }
        #expect(!effect.rebuilt)
        #expect(effect.insertedGroups == 1 && effect.deletedGroups == 1 && effect.updatedGroups == 1)
        let rows = try reopened.read { try replayed.rows(byYear, in: $0) }.rows
        #expect(rows.map { $0[0].description } == ["2021", "2022"])
        let located = try #require(byYear.aggregates.firstIndex { $0.name == "located" })
        #expect(rows[0][1 + located] == .integer(2))
        #expect(try reopened.read { try replayed.verify(byYear, in: $0) }.isEmpty)
    }

    @Test func verifyFindsAHandEditedView() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let store = try Store(path: path)
        let view = try store.read { try $0.view(named: "fireball_by_region") }
        #expect(try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }.isEmpty)
        try #require(store.sqliteConnection).execute("UPDATE fireball_by_region SET count = count + 1 WHERE region = 'NE'")
        let differences = try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }
        #expect(differences.map(\.column) == ["count"])
        #expect(differences.first?.group == [.text("NE")])
    }
}
