import ImporterTestSupport
@testable import ImporterModel
@testable import ImporterStorePostgres
import ImporterStore
import Testing

/// `DirectKeys` admits a first load's batch straight into the entity table only when none of its
/// keys can equal another admitted key, and within its memory bound.
@Suite struct DirectKeysTests {
    /// An entity keyed by one real attribute (a `double precision` column), and a batch of keys.
    static let entity = EntityDescription(name: "T", tableName: "t",
                                          attributes: [AttributeDescription(name: "k", type: .real, isOptional: false)],
                                          uniqueKey: ["k"], tombstoneAttributes: ["k"])

    static func batch(_ keys: [BatchValue]) -> RecordBatch {
        var batch = RecordBatch(columns: [0], keyPositions: [0])
        for key in keys {
            batch.append(key)
            batch.commitRecord(RecordOrigin(recordIndex: batch.count, line: 1, column: 1))
        }
        return batch
    }

    static func admit(_ keys: inout DirectKeys, _ values: [BatchValue]) -> Bool { keys.admit(batch(values)) }

    @Test func aRepeatWithinOrAcrossBatchesIsRefused() {
        var keys = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0])
        #expect(Self.admit(&keys, [.real(1), .real(2)]))
        #expect(Self.admit(&keys, [.real(3), .integer(4)]))
        // 2 as an integer is the stored double 2.0.
        #expect(!Self.admit(&keys, [.real(5), .integer(2)]))
        var within = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0])
        #expect(!Self.admit(&within, [.real(0), .real(-0.0)]), "0 and -0 are one double precision key")
    }

    @Test func keysWhoseEqualityTheHashCannotVouchForAreRefused() {
        var keys = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0])
        #expect(!Self.admit(&keys, [.real(.nan)]))
        var null = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0])
        #expect(!Self.admit(&null, [.null]))
    }

    @Test func theLimitBoundsTheKeysKept() {
        var keys = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0], limit: 3)
        #expect(Self.admit(&keys, [.real(1), .real(2)]))
        #expect(!Self.admit(&keys, [.real(3), .real(4)]), "4 keys would pass the limit of 3")
        #expect(keys.count == 2)
    }

    /// 600,000 keys, about 9 in each of the 65,536 arrays: past their first capacity (4) and a
    /// growth; every one is admitted once, and each one again is refused, found after the growths.
    @Test func keysAreFoundAfterTheArraysGrow() {
        var keys = DirectKeys(entity: Self.entity, columns: [0], keyPositions: [0])
        let count = 600_000
        for start in stride(from: 0, to: count, by: 1_000) {
            #expect(Self.admit(&keys, (start..<start + 1_000).map { .real(Double($0) + 0.5) }))
        }
        #expect(keys.count == count)
        let repeats = (0..<100).map { index -> Bool in
            var copy = keys
            return Self.admit(&copy, [.real(Double(index * 1_999 % count) + 0.5)])
        }
        #expect(!repeats.contains(true))
    }

    @Test func sortedFingerprintsFindWhatTheyHoldAcrossGrowths() {
        var set = SortedFingerprints()
        let prints = [0, UInt32.max] + (1...5_000).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) }
        var added = 0, again = 0
        for print in prints where set.insert(print) { added += 1 }
        for print in prints.reversed() where set.insert(print) { again += 1 }
        #expect(added == prints.count && again == 0)
    }
}

/// `DirectOrigins` keeps the direct records' origins in a file and their feeds' stretches in memory.
@Suite struct DirectOriginsTests {
    @Test func originsAreReadBackAndFeedsStretched() throws {
        let origins = DirectOrigins()
        let first = (0..<10_000).map { FeedRecord(feed: 0, recordIndex: 9_999 - $0).packed }
        let second = (0..<5).map { FeedRecord(feed: 2, recordIndex: $0).packed }
        try origins.append(first)
        try origins.append(second)
        try origins.append([FeedRecord(feed: 2, recordIndex: 7).packed])
        #expect(origins.count == 10_006)
        #expect(try origins.origin(at: 0) == first[0] && origins.origin(at: 9_999) == first[9_999])
        #expect(try FeedRecord(packed: origins.origin(at: 10_005)) == FeedRecord(feed: 2, recordIndex: 7))
        #expect(origins.feedRuns.map(\.feed) == [0, 2] && origins.feedRuns.map(\.end) == [10_000, 10_006])
    }

    @Test func anUnwritableDirectoryIsAnIOError() {
        let origins = DirectOrigins(directory: "/nonexistent-importer-directory")
        #expect(throws: StoreError.self) { try origins.append([1]) }
    }
}
