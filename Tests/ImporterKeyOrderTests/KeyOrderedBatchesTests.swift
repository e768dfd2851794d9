import ImporterTestSupport
import Foundation
@testable import ImporterModel
@testable import ImporterKeyOrder
import ImporterSupport
import Testing

/// The external sort in front of the store: a feed in key order (either way) passes through as it
/// came; a shuffled one larger than its memory is spilled in sorted runs and merged, every record
/// once with its values and origin, equal keys in feed order; a shuffled one that fits is passed
/// on as it came; no temporary file ever has a name.
@Suite struct KeyOrderedBatchesTests {
    /// One record: key text, then an integer, a real, a null or text value.
    struct Row: Equatable {
        var key: String
        var number: Int64
        var real: Double
        var note: String?
        var recordIndex: Int
    }

    static func batches(_ rows: [Row], size: Int) -> [RecordBatch] {
        stride(from: 0, to: rows.count, by: size).map { start in
            var batch = RecordBatch(columns: [0, 1, 2, 3], keyPositions: [0])
            for row in rows[start ..< min(start + size, rows.count)] {
                batch.append(text(row.key, into: &batch))
                batch.append(.integer(row.number))
                batch.append(.real(row.real))
                batch.append(row.note.map { text($0, into: &batch) } ?? .null)
                batch.commitRecord(RecordOrigin(recordIndex: row.recordIndex, line: Int32(row.recordIndex + 1), column: 3))
            }
            batch.feed = 2
            batch.duplicates = .first
            return batch
        }
    }

    static func text(_ text: String, into batch: inout RecordBatch) -> BatchValue {
        Array(text.utf8).withUnsafeBufferPointer { batch.appendText($0.baseAddress ?? emptyBytes, count: $0.count) }
    }

    static func rows(of batch: RecordBatch) -> [Row] {
        (0 ..< batch.count).map { record in
            guard case .text(let keyStart, let keyCount) = batch.value(record: record, position: 0),
                  case .integer(let number) = batch.value(record: record, position: 1),
                  case .real(let real) = batch.value(record: record, position: 2) else { return Row(key: "?", number: 0, real: 0, recordIndex: -1) }
            var note: String?
            if case .text(let start, let count) = batch.value(record: record, position: 3) { note = batch.text(start, count) }
            return Row(key: batch.text(keyStart, keyCount), number: number, real: real, note: note, recordIndex: batch.origins[record].recordIndex)
        }
    }

    /// `count` rows whose keys come in a scrambled order, every seventh key repeated later.
    static func shuffledRows(_ count: Int) -> [Row] {
        var rows = (0 ..< count).map { index in
            let key = (index * 7919) % count
            return Row(key: String(format: "k%06d", key), number: Int64(index), real: Double(index) / 3, note: index % 3 == 0 ? nil : "n\(index)", recordIndex: index)
        }
        for index in stride(from: 0, to: count, by: 7) {
            rows.append(Row(key: rows[index].key, number: -Int64(index), real: 0.5, note: "again", recordIndex: rows.count))
        }
        return rows
    }

    private func run(_ batches: [RecordBatch], runBytes: Int, directory: String) throws -> (out: [RecordBatch], sorter: KeyOrderedBatches) {
        let sorter = KeyOrderedBatches(directory: directory, runBytes: runBytes, batchSize: 100)
        var out: [RecordBatch] = []
        for batch in batches { try sorter.add(batch) { out.append($0) } }
        try sorter.finish { out.append($0) }
        return (out, sorter)
    }

    @Test func aFeedInKeyOrderEitherWayPassesThroughAsItCame() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let ascending = (0 ..< 1000).map { Row(key: String(format: "k%04d", $0), number: Int64($0), real: 1, recordIndex: $0) }
        for rows in [ascending, ascending.reversed()] {
            let batches = Self.batches(rows, size: 64)
            let (out, sorter) = try run(batches, runBytes: 1024, directory: directory.url.path)
            #expect(out.count == batches.count && out.map(Self.rows) == batches.map(Self.rows))
            #expect(sorter.sortingSeconds == 0)
            let expected: RecordBatch.KeyOrder = rows.first?.key == "k0000" ? .ascending : .descending
            #expect(out.allSatisfy { $0.strictKeyOrder == expected }, "each batch passed on notes its order, for the store not to compare again")
        }
    }

    /// The strict key order of a batch: found in either direction, none for a tie or a turn, and
    /// a noted order is void once a record is added or the batch emptied.
    @Test func aBatchsStrictKeyOrderIsFoundAndANotedOneVoidedByChanges() {
        func batch(_ keys: [String]) -> RecordBatch {
            Self.batches(keys.enumerated().map { Row(key: $0.element, number: 0, real: 0, recordIndex: $0.offset) }, size: 100)[0]
        }
        #expect(batch(["a", "b", "c"]).findStrictKeyOrder() == .ascending)
        #expect(batch(["c", "b", "a"]).findStrictKeyOrder() == .descending)
        #expect(batch(["a", "b", "b"]).findStrictKeyOrder() == nil, "a repeated key")
        #expect(batch(["a", "c", "b"]).findStrictKeyOrder() == nil, "a turn at the end")
        #expect(batch(["a"]).findStrictKeyOrder() == nil)
        var noted = batch(["a", "b"])
        #expect(noted.strictKeyOrder == nil, "nothing noted yet")
        noted.noteStrictKeyOrder(.ascending)
        #expect(noted.strictKeyOrder == .ascending)
        noted.append(Self.text("0", into: &noted))
        for value: BatchValue in [.integer(1), .real(1), .null] { noted.append(value) }
        noted.commitRecord(RecordOrigin(recordIndex: 2, line: 3, column: 1))
        #expect(noted.strictKeyOrder == nil, "a record added voids it")
        noted.noteStrictKeyOrder(.ascending)
        noted.removeAll()
        #expect(noted.strictKeyOrder == nil, "emptied")
    }

    @Test func aShuffledFeedLargerThanItsMemoryComesOutInKeyOrderEveryRecordOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let rows = Self.shuffledRows(5000)
        let (out, sorter) = try run(Self.batches(rows, size: 64), runBytes: 16 * 1024, directory: directory.url.path)
        let merged = out.flatMap(Self.rows)
        #expect(merged.count > 64 && sorter.sortingSeconds > 0)
        // The first batch waited for the second, which showed the feed out of order: one sorted stream.
        #expect(zip(merged, merged.dropFirst()).allSatisfy { $0.key < $1.key || ($0.key == $1.key && $0.recordIndex < $1.recordIndex) },
                "key order, equal keys in feed order")
        #expect(merged.sorted { $0.recordIndex < $1.recordIndex } == rows, "every record once, values and origins as read")
        #expect(out.allSatisfy { $0.feed == 2 && $0.duplicates == .first && $0.count <= 100 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "the spill file never has a name")
    }

    @Test func aShuffledFeedThatFitsItsMemoryIsSortedThereWithoutAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let rows = Self.shuffledRows(500)
        let (out, sorter) = try run(Self.batches(rows, size: 64), runBytes: 1 << 30, directory: directory.url.path)
        let merged = out.flatMap(Self.rows)
        #expect(zip(merged, merged.dropFirst()).allSatisfy { $0.key < $1.key || ($0.key == $1.key && $0.recordIndex < $1.recordIndex) },
                "key order from the first record, equal keys in feed order")
        #expect(merged.sorted { $0.recordIndex < $1.recordIndex } == rows, "every record once, values and origins as read")
        #expect(out.allSatisfy { $0.feed == 2 && $0.duplicates == .first && $0.count <= 100 } && sorter.sortingSeconds > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aShuffledFeedsUnchangedRecordsAreDroppedBeforeTheyAreHeld() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let rows = Self.shuffledRows(500)
        let sorter = KeyOrderedBatches(directory: directory.url.path, runBytes: 1 << 30, batchSize: 100)
        var out: [RecordBatch] = []
        var filtered = 0
        for batch in Self.batches(rows, size: 64) {
            try sorter.add(batch, dropUnchanged: { batch in
                filtered += 1
                return batch.keeping(Array(stride(from: 0, to: batch.count, by: 2)))
            }, upsert: { out.append($0) })
        }
        try sorter.finish { out.append($0) }
        // The first batch waited for the second, so it is filtered too.
        let batches = Self.batches(rows, size: 64)
        #expect(filtered == batches.count)
        #expect(out.reduce(0) { $0 + $1.count } == batches.reduce(0) { $0 + ($1.count + 1) / 2 })
    }

    /// Nothing is written before the second batch shows the feed's order: a shuffled feed's first
    /// batch is held with the rest, a sorted feed's first batch follows at the second, and a feed
    /// of one batch is written when it ends.
    @Test func theFirstBatchWaitsForTheSecondToShowTheFeedsOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let ascending = (0 ..< 128).map { Row(key: String(format: "k%04d", $0), number: Int64($0), real: 1, recordIndex: $0) }
        let shuffled = Self.shuffledRows(128)
        for (rows, inOrder) in [(ascending, true), (shuffled, false)] {
            let batches = Self.batches(rows, size: 64)
            let sorter = KeyOrderedBatches(directory: directory.url.path, runBytes: 1 << 30, batchSize: 100)
            var out: [RecordBatch] = []
            try sorter.add(batches[0]) { out.append($0) }
            #expect(out.isEmpty, "the first batch waits")
            try sorter.add(batches[1]) { out.append($0) }
            #expect(out.map(Self.rows) == (inOrder ? [Self.rows(of: batches[0]), Self.rows(of: batches[1])] : []))
            for batch in batches.dropFirst(2) { try sorter.add(batch) { out.append($0) } }
            try sorter.finish { out.append($0) }
            let merged = out.flatMap(Self.rows)
            #expect(merged.sorted { $0.recordIndex < $1.recordIndex } == rows, "every record once")
            #expect(inOrder || zip(merged, merged.dropFirst()).allSatisfy { $0.key <= $1.key }, "the shuffled feed comes out sorted, its first batch included")
        }
        let single = Self.batches(Array(ascending.prefix(10)), size: 64)
        let (out, _) = try run(single, runBytes: 1 << 30, directory: directory.url.path)
        #expect(out.map(Self.rows) == single.map(Self.rows), "a feed of one batch is written when it ends")
    }

    /// The spiller writes each run on its own thread while the caller goes on: the runs come back
    /// in the order spilled, one after the other in the file, each in key order with every record
    /// of its batches once.
    @Test func runsSpilledInTheBackgroundComeBackInOrderEachSorted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let spiller = RunSpiller(file: try SpillFile(directory: directory.url.path))
        let rows = Self.shuffledRows(3000)
        let parts = stride(from: 0, to: rows.count, by: 1000).map { Array(rows[$0 ..< min($0 + 1000, rows.count)]) }
        for part in parts { try spiller.spill(Self.batches(part, size: 64)) }
        let runs = try spiller.finish()
        #expect(runs.map(\.count) == parts.map(\.count))
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.offset < $1.offset }, "written one after the other")
        for (run, part) in zip(runs, parts) {
            let reader = SortedRun.Reader(run, in: spiller.file.reading, columns: [0, 1, 2, 3], keyPositions: [0], memory: 1 << 16)
            var block = reader.makeBlock()
            var read: [Row] = []
            repeat {
                try reader.refill(&block)
                read += Self.rows(of: block)
            } while !block.isEmpty
            #expect(zip(read, read.dropFirst()).allSatisfy { $0.key < $1.key || ($0.key == $1.key && $0.recordIndex < $1.recordIndex) })
            #expect(read.sorted { $0.recordIndex < $1.recordIndex } == part)
        }
    }

    @Test func aDirectoryThatCannotHoldTheRunsIsASpillError() throws {
        let batches = Self.batches(Self.shuffledRows(500), size: 64)
        let error = #expect(throws: SpillError.self) { try run(batches, runBytes: 1024, directory: "/nonexistent/dir") }
        #expect(error?.directory == "/nonexistent/dir" && error?.reason.isEmpty == false, "\(String(describing: error))")
    }

    /// What a process killed in the instant a fallback spill file had a name left is removed by
    /// the next spill there; a file just named (another run's, about to be unlinked) and other
    /// files are not.
    @Test func aSpillFileLeftByAKilledRunIsRemovedByTheNext() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let stale = try directory.write(SpillFile.namePrefix + "-abc123", "left")
        let fresh = try directory.write(SpillFile.namePrefix + "-def456", "live")
        let other = try directory.write("notes.txt", "mine")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: stale)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: other)
        UnnamedFile.removeStale(in: directory.url.path, prefix: SpillFile.namePrefix)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh) && FileManager.default.fileExists(atPath: other))
    }
}
