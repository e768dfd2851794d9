import ImporterTestSupport
import CSQLite
import Foundation
@testable import ImporterKit
import ImporterModel
@testable import ImporterStoreSQLite
import Testing

/// The reload's merge of sorted batches with the stored rows (`StoredRows`, `BatchUpserter`):
/// whatever the feed order, it must write what an upsert per record wrote.
@Suite struct ReloadMergeTests {
    /// A fireball API feed of `indices`; `energy` gives each record's energy.
    static func feed(_ indices: [Int], energy: (Int) -> Double = { Double($0 % 97) / 4 }) -> String {
        let rows = indices.map { i in
            let t = i * 3701
            let date = String(format: "%04d-%02d-%02d %02d:%02d:%02d", 2001 + t / 31_104_000, 1 + t / 2_592_000 % 12, 1 + t / 86400 % 28,
                              t / 3600 % 24, t / 60 % 60, t % 60)
            let location = i % 7 == 0 ? "null,null,null,null" : "\"\(i % 80).5\",\"N\",\"\(i % 170).25\",\"E\""
            return "[\"\(date)\",\"\(energy(i))\",\"0.\(i % 9 + 1)\",\(location),\(i % 5 == 0 ? "null" : "\"\(i % 60)\""),\"\(i % 30)\"]"
        }
        return #"{"signature":{"version":"1.2"},"count":"\#(rows.count)","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":[\#(rows.joined(separator: ",\n"))]}"#
    }

    /// Everything a reload leaves that must not depend on feed order: records and change rows,
    /// keyed by date (record ids follow insertion order).
    static func content(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, create: false)
        let records = try connection.rows("SELECT date, energy, impact_energy, latitude, longitude, altitude, velocity FROM fireball")
        let changes = try connection.rows("""
            SELECT c.importer_transaction_number, c.importer_type, c.importer_changed, c.date, c.energy, c."importer_old.energy", c.altitude
            FROM importer_change_fireball AS c
            """)
        return (records.map { "record \($0)" } + changes.map { "change \($0)" }).sorted()
    }

    @Test func aShuffledReloadWritesWhatAnOrderedOneWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let base = directory.path("base.json")
        try Self.feed(Array(0..<2000)).write(toFile: base, atomically: true, encoding: .utf8)
        // 40 gone, 200 changed, 30 new; record 7 twice (the second changed), record 2000 twice.
        var reload = (0..<2000).filter { $0 % 50 != 0 } + Array(2000..<2030) + [7, 2000]
        let energy: (Int) -> Double = { Double($0 % 97) / 4 + ($0 % 10 == 1 ? 0.5 : 0) }
        var results: [ChangeCounts] = []
        var contents: [[String]] = []
        for shuffled in [false, true] {
            if shuffled {
                var generator = SplitMix64(seed: 42)
                reload.shuffle(using: &generator)
            } else {
                reload.sort(by: >)
            }
            let feed = directory.path("reload-\(shuffled).json")
            var seenSeven = false
            try Self.feed(reload) { i in
                if i == 7 { defer { seenSeven = true }; return seenSeven ? 99.5 : energy(i) }
                return energy(i)
            }.write(toFile: feed, atomically: true, encoding: .utf8)
            let store = directory.path("s-\(shuffled).sqlite")
            try importFeeds([base], into: store, batchSize: 64)
            results.append(try importFeeds([feed], into: store, sync: true, batchSize: 64).totals)
            contents.append(try Self.content(store))
        }
        #expect(results[0] == ChangeCounts(inserted: 30, updated: 201, deleted: 40, unchanged: 1759, duplicates: 2))
        #expect(results[1] == results[0])
        #expect(contents[1] == contents[0])
    }

    /// Keys of every storage class, in the order SQLite's index gives them, compare in that order
    /// both within a batch (`RecordBatch.compareKeys`) and against a stored row (`StoredRows.compare`).
    @Test func keysCompareAsTheIndexOrdersThem() throws {
        var generator = SplitMix64(seed: 7)
        var batch = RecordBatch(columns: [0], keyPositions: [0])
        let texts = ["", "a", "ab", "b", "é", "e\u{301}", "Z", "a\u{0}b", "€uro", "日本"]
        for _ in 0..<600 {
            switch generator.next() % 4 {
            case 0: batch.append(.integer(Int64(bitPattern: generator.next()) >> Int64(generator.next() % 60)))
            case 1: batch.append(.integer((1 << 53) + Int64(generator.next() % 4)))
            case 2: batch.append(.real(Double(Int64(bitPattern: generator.next()) >> 20) / 1024))
            default:
                let text = Array(texts[Int(generator.next() % UInt64(texts.count))].utf8) + Array(String(generator.next() % 3).utf8)
                batch.append(text.withUnsafeBufferPointer { batch.appendText($0.baseAddress ?? emptyBytes, count: $0.count) })
            }
            batch.commitRecord(RecordOrigin(recordIndex: batch.count, line: 1, column: 1))
        }
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        try connection.execute("CREATE TABLE t (k, record INTEGER)")
        try connection.execute("CREATE INDEX t_k ON t (k)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?1, ?2)")
        try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            for record in 0..<batch.count {
                insert.bind(batch, record, positions: [0], base, firstParameter: 1)
                insert.bind(Int64(record), at: 2)
                _ = try insert.step()
                insert.reset()
            }
            let ordered = try connection.prepare("SELECT k, record FROM t ORDER BY k")
            var previous: Int?
            try ordered.forEachRow { row in
                let record = Int(row.int64(at: 1))
                if let previous {
                    #expect(batch.compareKeys(previous, record) <= 0, "\(batch.publicValue(record: previous, position: 0)) before \(batch.publicValue(record: record, position: 0))")
                    #expect(StoredRows.compare(batch.value(record: previous, position: 0), base, row.handle, 0) <= 0)
                }
                #expect(StoredRows.compare(batch.value(record: record, position: 0), base, row.handle, 0) == 0)
                previous = record
            }
        }
    }
}
