import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

@Suite struct UpsertTests {
    @Test func firstImportInsertsEveryRecordWithItsValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let result = try importFeeds([sample("fireball-2024.json")], into: store)
        #expect(result.transactionNumber == 1)
        #expect(result.totals == ChangeCounts(inserted: 10))
        let rows = try fireballRows(store)
        #expect(rows.count == 10)
        let july = try #require(rows.first { $0["date"] == .text("2024-07-21 08:12:05") })
        #expect(july["energy"] == .real(2.1))
        #expect(july["impact_energy"] == .real(0.076))
        #expect(july["latitude"] == .real(-32.5))
        #expect(july["longitude"] == .real(-76.1))
        #expect(july["vx"] == .null)
        let september = try #require(rows.first { $0["date"] == .text("2024-09-04 16:39:40") })
        #expect(september["velocity"] == .real(12.8))
        let march = try #require(rows.first { $0["date"] == .text("2024-03-02 11:05:20") })
        #expect(march["latitude"] == .null && march["longitude"] == .null)
    }

    @Test func syncSnapshotRecordsExactInsertsUpdatesAndDeletes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let idsBefore = Dictionary(uniqueKeysWithValues: try fireballRows(path).map { ($0["date"]!, $0["id"]!) })
        let result = try importFeeds([sample("fireball-2026.json")], into: path, sync: true)
        // NASA re-timed 2023-04-11 14:52:09 to 14:52:10: within the model's 1 s drift, one re-keyed update.
        #expect(result.totals == ChangeCounts(inserted: 3, updated: 3, deleted: 2, unchanged: 5, rekeyed: 1))

        let store = try Store(path: path)
        let changes = try store.read { try $0.changes(in: 2) }
        #expect(changes.count == 8)
        var updates = changes.filter { $0.type == .update }.sorted { $0.keyDescription < $1.keyDescription }
        #expect(updates.map(\.keyDescription) == ["2023-04-11 14:52:10", "2024-05-18 22:46:48", "2024-07-21 08:12:05"])
        let rekeyed = updates.removeFirst()
        #expect(rekeyed.isRekey)
        #expect(rekeyed.changed.first == AttributeChange(attribute: "date", old: .text("2023-04-11 14:52:09"), new: .text("2023-04-11 14:52:10")))
        #expect(rekeyed.recordID == idsBefore[.text("2023-04-11 14:52:09")].flatMap { if case .integer(let id) = $0 { id } else { nil } })
        #expect(updates[0].changed == [AttributeChange(attribute: "altitude", old: .null, new: .real(28.1))])
        #expect(updates[1].changed == [
            AttributeChange(attribute: "energy", old: .real(2.1), new: .real(2.4)),
            AttributeChange(attribute: "impact_energy", old: .real(0.076), new: .real(0.085)),
        ])
        // Updates keep the record id.
        #expect(updates[1].recordID == idsBefore[.text("2024-07-21 08:12:05")].flatMap { if case .integer(let id) = $0 { id } else { nil } })

        let deletes = changes.filter { $0.type == .delete }.sorted { $0.keyDescription < $1.keyDescription }
        #expect(deletes.map(\.keyDescription) == ["2021-10-01 05:48:11", "2022-11-19 08:27:03"])
        #expect(deletes[0].tombstone.map(\.0) == ["date", "energy", "impact_energy", "latitude", "longitude"])
        #expect(deletes[0].tombstone.map(\.1) == [.text("2021-10-01 05:48:11"), .real(0.9), .real(0.036), .real(-8.7), .real(173.3)])

        let inserts = changes.filter { $0.type == .insert }.map(\.keyDescription).sorted()
        #expect(inserts == ["2019-12-24 07:14:18", "2026-03-20 10:45:59", "2026-04-08 01:58:47"])
        // New records never reuse an id.
        let maxOldID: Int64 = idsBefore.values.compactMap { value -> Int64? in if case .integer(let id) = value { id } else { nil } }.max() ?? 0
        #expect(changes.filter { $0.type == .insert }.allSatisfy { $0.recordID > maxOldID })
        #expect(try fireballRows(path).count == 11)
    }

    @Test func identicalReloadWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let result = try importFeeds([sample("fireball-2024.json")], into: path, sync: true)
        #expect(result.transactionNumber == nil)
        #expect(result.totals == ChangeCounts(unchanged: 10))
        let store = try Store(path: path)
        #expect(try store.lastTransactionNumber() == 1)
        #expect(try store.read { try $0.transactions() }.count == 1)
        #expect(try #require(store.sqliteConnection).scalar("SELECT count(*) FROM importer_change_fireball") == .integer(10))
    }

    @Test func attributesTheFeedDoesNotSupplyAreLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-vel-comp.json")], into: path)
        let result = try importFeeds([sample("fireball-2024.json")], into: path)
        // 2024-07-21 has energy 2.4 in the vel-comp feed and 2.1 in the 2024 snapshot.
        #expect(result.totals.updated == 1)
        let rows = try fireballRows(path)
        let september = try #require(rows.first { $0["date"] == .text("2024-09-04 16:39:40") })
        #expect(september["vx"] == .real(-7.9))
        #expect(september["vz"] == .real(3.1))
        let store = try Store(path: path)
        let update = try #require(try store.read { try $0.changes(in: 2) }.first { $0.type == .update })
        #expect(update.changed.map(\.attribute) == ["energy", "impact_energy"])
        #expect(update.value("vx") == .null)
    }

    @Test func lastDuplicateWinsWithinABatchAndOneChangeIsRecorded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = try directory.write("dup.json", fireballFeed([
            #"["2024-01-01 00:00:00","1.0","0.1",null,null,null,null,null,null]"#,
            #"["2024-01-02 00:00:00","5.0","0.5",null,null,null,null,null,null]"#,
            #"["2024-01-01 00:00:00","2.0","0.2",null,null,null,null,null,null]"#,
            #"["2024-01-01 00:00:00","3.0","0.3",null,null,null,null,null,null]"#,
        ]))
        let path = directory.path("s.sqlite")
        let result = try importFeeds([feed], into: path)
        #expect(result.totals == ChangeCounts(inserted: 2, duplicates: 2))
        let rows = try fireballRows(path)
        #expect(rows.map { $0["energy"] } == [.real(3.0), .real(5.0)])
        let changes = try Store(path: path).read { try $0.changes(in: 1) }
        #expect(changes.count == 2)
        #expect(changes.first { $0.keyDescription == "2024-01-01 00:00:00" }?.value("energy") == .real(3.0))
    }

    @Test func duplicatesAcrossBatchesAndFeedsMergeIntoOneChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let before = try directory.write("before.json", fireballFeed([
            #"["2024-01-01 00:00:00","1.0","0.1",null,null,null,null,null,null]"#,
            #"["2024-01-02 00:00:00","5.0","0.5",null,null,null,null,null,null]"#,
        ]))
        try importFeeds([before], into: path)
        // Batches of one record: every repeat is a cross-batch duplicate.
        let feed = try directory.write("dup.json", fireballFeed([
            #"["2024-01-01 00:00:00","9.0","0.1",null,null,null,null,null,null]"#,  // update...
            #"["2024-01-03 00:00:00","7.0","0.7",null,null,null,null,null,null]"#,  // insert...
            #"["2024-01-02 00:00:00","6.0","0.5",null,null,null,null,null,null]"#,  // update...
            #"["2024-01-01 00:00:00","1.0","0.1",null,null,null,null,null,null]"#,  // ...back to the stored values
            #"["2024-01-03 00:00:00","8.0","0.8",null,null,null,null,null,null]"#,  // ...insert with new values
            #"["2024-01-02 00:00:00","6.0","0.6",null,null,null,null,null,null]"#,  // ...one update of both
        ]))
        let result = try importFeeds([feed], into: path, batchSize: 1)
        #expect(result.totals == ChangeCounts(inserted: 1, updated: 1, unchanged: 1, duplicates: 3))
        let changes = try Store(path: path).read { try $0.changes(in: 2) }
        #expect(changes.count == 2)
        let insert = try #require(changes.first { $0.type == .insert })
        #expect(insert.keyDescription == "2024-01-03 00:00:00")
        #expect(insert.value("energy") == .real(8.0))
        let update = try #require(changes.first { $0.type == .update })
        #expect(update.keyDescription == "2024-01-02 00:00:00")
        #expect(update.changed == [
            AttributeChange(attribute: "energy", old: .real(5.0), new: .real(6.0)),
            AttributeChange(attribute: "impact_energy", old: .real(0.5), new: .real(0.6)),
        ])
        #expect(try fireballRows(path).map { $0["energy"] } == [.real(1.0), .real(6.0), .real(8.0)])

        // The same key in two feeds of one run is a duplicate too; the later feed wins.
        let a = try directory.write("a.json", fireballFeed([#"["2024-02-01 00:00:00","1.0","0.1",null,null,null,null,null,null]"#]))
        let b = try directory.write("b.json", fireballFeed([#"["2024-02-01 00:00:00","2.0","0.1",null,null,null,null,null,null]"#]))
        let twoFeeds = try importFeeds([a, b], into: path)
        #expect(twoFeeds.totals == ChangeCounts(inserted: 1, unchanged: 0, duplicates: 1))
        #expect(try fireballRows(path).first { $0["date"] == .text("2024-02-01 00:00:00") }?["energy"] == .real(2.0))
    }

    @Test func duplicatesAreFoundAcrossFeedsThatSupplyDifferentFields() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        // 64 keys: one full chunk of seen-key marking in each feed.
        let dates = (0..<64).map { String(format: "2024-03-%02d %02d:00:00", 1 + $0 / 24, $0 % 24) }
        func row(_ date: String, _ energy: String) -> String { #"["\#(date)","\#(energy)","0.1",null,null,null,null,null,null]"# }
        try importFeeds([try directory.write("before.json", fireballFeed(dates.map { row($0, "1.0") }))], into: path)
        // The first feed changes energy; the second has no altitude field and changes it back.
        let first = try directory.write("first.json", fireballFeed(dates.map { row($0, "2.0") }))
        let fields = #"["date","energy","impact-e","lat","lat-dir","lon","lon-dir","vel"]"#
        let second = try directory.write("second.json", fireballFeed(dates.map { #"["\#($0)","1.0","0.1",null,null,null,null,null]"# }, fields: fields))
        let result = try importFeeds([first, second], into: path)
        #expect(result.totals == ChangeCounts(unchanged: 64, duplicates: 64))
        #expect(result.transactionNumber == nil)
        #expect(try fireballRows(path).allSatisfy { $0["energy"] == .real(1.0) })
    }

    @Test func syncTakesTheUnionOfTheRunsFeeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let result = try importFeeds([sample("fireball-vel-comp.json"), sample("fireball-empty.json")], into: path, sync: true) { options in
            options.allowEmpty = true
            options.maxDelete = .percent(100)
        }
        #expect(result.totals.deleted == 7)
        #expect(try fireballRows(path).count == 3)
    }

    @Test func toleratesRejectsUpToTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let result = try importFeeds([sample("malformed/bad-number.json")], into: path, maxRejects: 1)
        #expect(result.totals == ChangeCounts(inserted: 1, rejected: 1))
        #expect(result.rejects.first?.attribute == "impact_energy")
        #expect(throws: ImportError.self) { try importFeeds([sample("malformed/bad-number.json")], into: directory.path("t.sqlite"), maxRejects: 0) }
    }
}
