import ImporterTestSupport
import CSQLite
import Foundation
@testable import ImporterKit
import ImporterModel
@testable import ImporterStoreSQLite
import Testing

/// The reload's filter of unchanged records (`UnchangedFilter`, `ValueHasher`): it may drop a
/// record only when the store holds exactly its values and no earlier record of its key is still
/// to be written, whatever the feed's order and its `duplicates` choice.
@Suite struct UnchangedFilterTests {
    /// The hash of `values` as a batch holds them, and as a stored row of a table with `types`.
    private func hashes(_ values: [BatchValue], texts: [String] = [], types: [String]) throws -> (batch: UInt64, stored: UInt64) {
        var generator = SplitMix64(seed: 3)
        let hasher = ValueHasher(using: &generator)
        var batch = RecordBatch(columns: Array(values.indices), keyPositions: [0])
        var texts = texts.makeIterator()
        var publicValues: [Value] = []
        for value in values {
            guard case .text = value, let text = texts.next() else {
                batch.append(value)
                publicValues.append(value.isNull ? .null : Self.publicValue(value))
                continue
            }
            batch.append(batch.appendText(text, count: text.utf8.count))
            publicValues.append(.text(text))
        }
        batch.commitRecord(RecordOrigin(recordIndex: 0, line: 1, column: 1))
        var fromBatch = hasher.start
        batch.arena.withUnsafeBufferPointer { arena in
            for position in values.indices { hasher.add(batch.value(record: 0, position: position), arena.baseAddress ?? emptyBytes, &fromBatch) }
        }
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        try connection.execute("CREATE TABLE t (\(types.indices.map { "c\($0) \(types[$0])" }.joined(separator: ", ")))")
        try connection.execute("INSERT INTO t VALUES (\(types.indices.map { _ in "?" }.joined(separator: ", ")))", publicValues)
        var fromRow = hasher.start
        try connection.prepare("SELECT * FROM t").forEachRow { row in
            for column in 0..<row.columnCount {
                if let value = sqlite3_column_value(row.handle, column) { hasher.add(stored: value, &fromRow) }
            }
        }
        return (hasher.finish(fromBatch), hasher.finish(fromRow))
    }

    private static func publicValue(_ value: BatchValue) -> Value {
        switch value {
        case .integer(let v): .integer(v)
        case .real(let v): .real(v)
        default: .null
        }
    }

    @Test func aBatchAndTheRowStoringItsValuesHashAlike() throws {
        let types = ["TEXT", "INTEGER", "REAL", "REAL", "TEXT", "INTEGER"]
        // An integer in a REAL column is stored as 3.0; 2^53 + 1 stays an exact integer.
        let values: [BatchValue] = [.text(start: 0, count: 0), .integer((1 << 53) + 1), .real(2.5), .integer(3), .text(start: 0, count: 0), .null]
        let texts = ["2024-01-01 00:00:00", "a text longer than sixteen bytes, é and 日本"]
        let (batch, stored) = try hashes(values, texts: texts, types: types)
        #expect(batch == stored)

        var changed = values
        changed[2] = .real(2.25)
        #expect(try hashes(changed, texts: texts, types: types).batch != batch)
        var nulled = values
        nulled[3] = .null
        #expect(try hashes(nulled, texts: texts, types: types).batch != batch)
        #expect(try hashes(values, texts: [texts[0], texts[1] + "!"], types: types).batch != batch)
    }

    @Test func aValueStoredInAnotherFormIsNeverTakenForTheSame() throws {
        // Text in an INTEGER column is stored as the integer 12: the hashes differ, the upserter decides.
        let (batch, stored) = try hashes([.text(start: 0, count: 0)], texts: ["12"], types: ["INTEGER"])
        #expect(batch != stored)
        // A BLOB is never what a batch holds, not even its bytes as text.
        var generator = SplitMix64(seed: 3)
        let hasher = ValueHasher(using: &generator)
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        var text = hasher.start
        var blob = hasher.start
        "ab".utf8CString.withUnsafeBufferPointer { hasher.add(text: UnsafeRawPointer($0.baseAddress!), count: 2, &text) }
        try connection.prepare("SELECT x'6162'").forEachRow { row in
            if let value = sqlite3_column_value(row.handle, 0) { hasher.add(stored: value, &blob) }
        }
        #expect(hasher.finish(text) != hasher.finish(blob))
    }

    /// One stored key `k` and 400 others; the reload holds a changed record of `k` and one equal to
    /// the stored row, in either order, shuffled among the others so that it is sorted through a run.
    /// The same with the filter off: the merged records are noted by `StoredRowMatcher` instead.
    @Test(arguments: [DuplicateKeys.last, .first, .reject], [(false, true), (true, true), (false, false), (true, false)])
    func aKeptRecordKeepsItsKeysLaterRecords(duplicates: DuplicateKeys, order: (changedFirst: Bool, filter: Bool)) throws {
        let changedFirst = order.changedFirst
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        func row(_ i: Int, energy: String = "1.0") -> String {
            #"["\#(String(format: "2024-%02d-%02d %02d:00:00", 1 + i / 672, 1 + i / 24 % 28, i % 24))","\#(energy)","0.1",null,null,null,null,null,null]"#
        }
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("base.json", fireballFeed((0..<401).map { row($0) }))], into: path)
        var others = Array(1..<401).map { row($0, energy: $0 % 40 == 0 ? "2.0" : "1.0") }
        var generator = SplitMix64(seed: 11)
        others.shuffle(using: &generator)
        let pair = changedFirst ? [row(0, energy: "9.0"), row(0)] : [row(0), row(0, energy: "9.0")]
        let rows = Array(others[..<150]) + [pair[0]] + Array(others[150..<300]) + [pair[1]] + Array(others[300...])
        let feed = try directory.write("reload.json", fireballFeed(rows))
        var mapping = FireballModel.apiFeed
        mapping.duplicates = duplicates
        let store = try Store(path: path)
        var options = ImportOptions(author: "test", context: "test")
        options.batchSize = 32
        options.sortRunBytes = 4096
        options.maxRejects = 1
        options.filtersUnchangedBeforeSorting = order.filter
        let result = try ImportSession(store: store, model: FireballModel.model, options: options).run([FeedInput(path: feed, mapping: mapping)])

        // The record that stays: the last or the first of the two; a rejected repeat is not written.
        let keptChanged = changedFirst != (duplicates == .last)
        let energy = try fireballRows(path).first { $0["date"] == .text("2024-01-01 00:00:00") }?["energy"]
        #expect(energy == .real(keptChanged ? 9.0 : 1.0))
        let updated = 10 + (keptChanged ? 1 : 0)
        #expect(result.totals.updated == updated)
        #expect(result.totals.unchanged == 401 - updated)
        #expect(result.totals.duplicates == (duplicates == .reject ? 0 : 1))
        #expect(result.totals.rejected == (duplicates == .reject ? 1 : 0))
    }

    /// Past `parallelRows` ids the table is scanned in two halves at once, the upper one on a
    /// connection of its own: records equal to the stored rows of either half are dropped, and
    /// only those; when that connection cannot be opened (the file moved away under the open
    /// store), the import's own connection scans the upper half.
    @Test(arguments: [false, true])
    func aTableScannedInTwoHalvesKnowsEveryRow(helperFails: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let count = UnchangedFilter.parallelRows + 4000
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("base.json", ReloadMergeTests.feed(Array(0..<count)))], into: path)
        let entity = FireballModel.entity
        let names = ["date", "energy", "impact_energy", "latitude", "longitude", "altitude", "velocity"]
        let columns = names.compactMap(entity.attributeIndex(named:))
        let connection = try SQLiteConnection(path: path, create: false)
        let batch = try Self.storedRows(connection, names, columns)
        try #require(batch.count == count)
        if helperFails { try FileManager.default.moveItem(atPath: path, toPath: directory.path("moved.sqlite")) }
        let seen = SeenRecords(lastIDBefore: Int64(count), slot: 0)
        let filter = try #require(try UnchangedFilter.build(connection: connection, entity: entity, columns: columns, seen: seen))
        let kept = filter.dropping(batch)
        let changed = (0..<count).filter { $0 % 1000 == 3 }
        try #require(kept.count == changed.count, "kept \(kept.count) of \(count) records, \(changed.count) changed")
        #expect((0..<kept.count).map { kept.origins[$0].recordIndex } == changed)
        #expect(seen.storedCount == count - kept.count)
    }

    /// The stored rows as a feed would bring them (in id order), every 1000th with another energy.
    private static func storedRows(_ connection: SQLiteConnection, _ names: [String], _ columns: [Int]) throws -> RecordBatch {
        var batch = RecordBatch(columns: columns, keyPositions: [0])
        try connection.prepare("SELECT \(names.joined(separator: ", ")) FROM fireball ORDER BY id").forEachRow { row in
            let record = batch.count
            for column in 0..<Int32(names.count) {
                switch row.value(at: column) {
                case .text(let text): batch.append(batch.appendText(text, count: text.utf8.count))
                case .real(let value): batch.append(.real(column == 1 && record % 1000 == 3 ? value + 0.1 : value))
                default: batch.append(.null)
                }
            }
            batch.commitRecord(RecordOrigin(recordIndex: record, line: 1, column: 1))
        }
        return batch
    }

    /// The records the run itself inserted (ids past `lastIDBefore`) are not scanned: a first load
    /// builds no filter, and a record equal to a row the run inserted is kept, for the upserter.
    @Test func onlyTheRecordsStoredBeforeTheRunAreScanned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([try directory.write("base.json", ReloadMergeTests.feed(Array(0..<1500)))], into: path)
        let entity = FireballModel.entity
        let names = ["date", "energy", "impact_energy", "latitude", "longitude", "altitude", "velocity"]
        let columns = names.compactMap(entity.attributeIndex(named:))
        let connection = try SQLiteConnection(path: path, create: false)
        let batch = try Self.storedRows(connection, names, columns)
        #expect(try UnchangedFilter.build(connection: connection, entity: entity, columns: columns, seen: SeenRecords(lastIDBefore: 0, slot: 0)) == nil)
        let seen = SeenRecords(lastIDBefore: 600, slot: 0)
        let filter = try #require(try UnchangedFilter.build(connection: connection, entity: entity, columns: columns, seen: seen))
        let kept = filter.dropping(batch)
        #expect((0..<kept.count).map { kept.origins[$0].recordIndex } == [3] + Array(600..<1500))
        #expect(seen.storedCount == 599)
    }

    @Test(arguments: [true, false])
    func aSyncReloadKeepsTheRecordsItDroppedAsUnchanged(filter: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let rows = (0..<300).map { #"["\#(String(format: "2024-02-%02d %02d:00:00", 1 + $0 / 24, $0 % 24))","1.0","0.1",null,null,null,null,null,null]"# }
        try importFeeds([try directory.write("base.json", fireballFeed(rows))], into: path)
        var shuffled = Array(rows.dropFirst(10))
        var generator = SplitMix64(seed: 5)
        shuffled.shuffle(using: &generator)
        let result = try importFeeds([try directory.write("reload.json", fireballFeed(shuffled))], into: path, sync: true, batchSize: 16) {
            $0.sortRunBytes = 2048
            $0.filtersUnchangedBeforeSorting = filter
        }
        #expect(result.totals == ChangeCounts(deleted: 10, unchanged: 290))
        #expect(try fireballRows(path).count == 290)
    }
}

private extension BatchValue {
    var isNull: Bool { if case .null = self { true } else { false } }
}
