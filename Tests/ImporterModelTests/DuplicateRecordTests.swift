import ImporterTestSupport
import ImporterModel
import Testing

/// How a key's repeats are told apart (same feed: the feed's choice; another feed: a merge that
/// starts over), and the 8-byte place stores keep for a key's first occurrence.
@Suite struct DuplicateRecordTests {
    func at(_ feed: Int, _ record: Int) -> FeedRecord { FeedRecord(feed: feed, recordIndex: record) }

    @Test func repeatsInOneFeedFollowItsChoiceAndAnotherFeedMerges() {
        let found = DuplicateRecord.chain(entity: "Quake", key: [.text("a")], earlier: nil,
                                          occurrences: [at(0, 1), at(0, 7), at(1, 0), at(1, 3)]) { $0 == 0 ? .first : .reject }
        #expect(found.map(\.resolution) == [.firstKept, .merged, .rejected])
        #expect(found.map(\.first) == [at(0, 1), at(0, 1), at(1, 0)])
        #expect(found.map(\.later) == [at(0, 7), at(1, 0), at(1, 3)])
    }

    @Test func anEarlierBatchsRecordIsTheFirstAndAnUnknownOneIsNamedAsSuch() {
        let known = DuplicateRecord.chain(entity: "Quake", key: [.integer(4)], earlier: at(0, 2), occurrences: [at(0, 9)]) { _ in .last }
        #expect(known == [DuplicateRecord(entity: "Quake", key: [.integer(4)], first: at(0, 2), later: at(0, 9), resolution: .lastKept)])
        let unknown = DuplicateRecord.chain(entity: "Quake", key: [.integer(4)], earlier: at(0, -1), occurrences: [at(0, 9)]) { _ in .last }
        #expect(unknown.first?.first == nil && unknown.first?.resolution == .lastKept)
        #expect(DuplicateRecord.chain(entity: "Quake", key: [], earlier: nil, occurrences: [at(0, 1)]) { _ in .last }.isEmpty)
    }

    @Test(arguments: [(0, 0), (3, 12_345), (8_388_607, 1_099_511_627_775)])
    func placesPackIntoOnePositiveInteger(feed: Int, record: Int) {
        let packed = at(feed, record).packed
        #expect(packed >= 0)
        #expect(FeedRecord(packed: packed) == at(feed, record))
        var position = FeedRecord(feed: feed, recordIndex: record, line: 4_000_000_000, column: 17)
        let unpacked = position.packedPosition
        position.line = nil
        position.unpackPosition(unpacked)
        #expect(position.line == 4_000_000_000 && position.column == 17)
    }

    /// A log names the earliest repeats in feed order whatever order they came in (a sorted feed's
    /// come in key order), in pieces or at once; it counts the rest and keeps every rejected one.
    @Test func aLogNamesTheEarliestRepeatsWhateverTheirOrder() {
        var generator = SplitMix64(seed: 7)
        let repeats = (0..<40).map { index in
            DuplicateRecord(entity: "Quake", key: [.integer(Int64(index))], first: at(0, 0), later: at(index % 2, 100 - index),
                            resolution: index % 5 == 0 ? .rejected : .lastKept)
        }
        var whole = DuplicateLog()
        var halves = (DuplicateLog(), DuplicateLog())
        for (position, duplicate) in repeats.shuffled(using: &generator).enumerated() {
            whole.append(duplicate)
            if position % 2 == 0 { halves.0.append(duplicate) } else { halves.1.append(duplicate) }
        }
        halves.0.append(contentsOf: halves.1)
        let kept = repeats.filter { $0.resolution != .rejected }.sorted { ($0.later.feed, $0.later.recordIndex) < ($1.later.feed, $1.later.recordIndex) }
        #expect(whole.earliest == Array(kept.prefix(DuplicateLog.named)) && halves.0.earliest == whole.earliest)
        #expect(whole.count == 32 && halves.0.count == 32)
        #expect(Set(whole.rejected.map(\.later.recordIndex)) == Set(halves.0.rejected.map(\.later.recordIndex)) && whole.rejected.count == 8)
        var taken = whole
        #expect(taken.takeRejected().count == 8 && taken.rejected.isEmpty && !taken.isEmpty && DuplicateLog().isEmpty)
    }
}
