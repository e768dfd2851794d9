import ImporterTestSupport
@testable import ImporterModel
@testable import ImporterStoreSQLite
import Testing

/// What an import has written, 4 bytes per record: a record is new once, then `again` with the
/// place its key was first met, for stored and inserted records alike; a place past what 4 bytes
/// hold is kept as unknown (the repeat still found).
@Suite struct SeenRecordsTests {
    @Test func aRecordWrittenTwiceNamesWhereItWasFirstMet() {
        let seen = SeenRecords(lastIDBefore: 10_000, slot: 0)
        #expect(seen.mark(4097, origin: FeedRecord(feed: 2, recordIndex: 70)) == .new)
        #expect(seen.mark(4097, origin: FeedRecord(feed: 0, recordIndex: 1)) == .again(FeedRecord(feed: 2, recordIndex: 70)))
        seen.set(10_003, origin: FeedRecord(feed: 63, recordIndex: (1 << 26) - 3))
        #expect(seen.mark(10_003, origin: nil) == .again(FeedRecord(feed: 63, recordIndex: (1 << 26) - 3)))
        #expect(seen.contains(4097) && seen.contains(10_003) && !seen.contains(4096) && seen.storedCount == 1)
    }

    @Test func aPlacePastFourBytesIsUnknownButTheRepeatIsFound() {
        let seen = SeenRecords(lastIDBefore: 100, slot: 0)
        #expect(seen.mark(5, origin: FeedRecord(feed: 64, recordIndex: 3)) == .new)
        #expect(seen.mark(5, origin: nil) == .again(nil))
        #expect(seen.mark(6, origin: FeedRecord(feed: 0, recordIndex: 1 << 26)) == .new)
        #expect(seen.mark(6, origin: nil) == .again(nil))
        #expect(seen.mark(7, origin: nil) == .new && seen.mark(7, origin: nil) == .again(nil))
        #expect(seen.storedCount == 3)
    }

    @Test func insertedRecordsAcrossPagesKeepTheirPlaces() {
        let seen = SeenRecords(lastIDBefore: 50, slot: 0)
        for id in Int64(51)...10_050 where id % 3 != 0 {
            seen.set(id, origin: FeedRecord(feed: Int(id % 5), recordIndex: Int(id)))
        }
        for id in [Int64(51), 4_146, 4_147, 8_243, 10_049, 10_050] {
            let expected: FeedRecord? = id % 3 == 0 ? nil : FeedRecord(feed: Int(id % 5), recordIndex: Int(id))
            #expect(seen.mark(id, origin: nil) == .again(expected), "record \(id)")
        }
        #expect(seen.mark(20_000, origin: nil) == .again(nil))
        #expect(seen.contains(20_000) && seen.storedCount == 0)
    }
}
