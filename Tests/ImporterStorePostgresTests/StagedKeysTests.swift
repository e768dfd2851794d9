import ImporterTestSupport
@testable import ImporterModel
@testable import ImporterStorePostgres
import Testing

/// `StagedKeys` tells the set-based apply the staged keys are distinct only when no two can be
/// equal, however far apart they were staged: from their strict order while they keep one, else
/// from their prints, given up (the dedupe runs) past a limit or when a later batch breaks the
/// order.
@Suite struct StagedKeysTests {
    /// `values` staged in batches of `batchSize` records (one batch by default), in feed order.
    static func keys(_ values: [BatchValue], batchSize: Int = .max, limit: Int = StagedKeys.defaultLimit,
                     entity: EntityDescription = DirectKeysTests.entity) -> StagedKeys {
        var keys = StagedKeys(entity: entity, columns: [0], keyPositions: [0], limit: limit)
        for start in stride(from: 0, to: values.count, by: min(batchSize, max(values.count, 1))) {
            let batch = DirectKeysTests.batch(Array(values[start..<min(start + batchSize, values.count)]))
            keys.append(batch, records: Array(0..<batch.count))
        }
        return keys
    }

    /// A fixed permutation of 0..<n (a multiplicative step prime to n).
    static func shuffled(_ n: Int) -> [BatchValue] {
        (0..<n).map { .real(Double($0 * 7_919 % n)) }
    }

    @Test(arguments: [Int.max, 1_000, 1])
    func manyDistinctKeysAreDistinctSortedOrShuffled(batchSize: Int) {
        var ascending = Self.keys((0..<20_000).map { .real(Double($0) * 0.5) }, batchSize: batchSize)
        var descending = Self.keys((0..<20_000).reversed().map { .integer(Int64($0)) }, batchSize: batchSize)
        // Shuffled: the first batch breaks the order, and its keys on are printed.
        var shuffled = Self.keys(Self.shuffled(20_000), batchSize: batchSize == 1 ? 20_000 : batchSize)
        let answers = (ascending.distinct(), descending.distinct(), shuffled.distinct())
        #expect(answers == (true, true, true))
    }

    @Test func anOrderBrokenAfterTheFirstBatchGivesUp() {
        // Distinct keys, but those of the first batches were not printed: the dedupe must run.
        var broken = Self.keys((0..<3_000).map { .real(Double($0)) } + [.real(-1), .real(-2)], batchSize: 1_000)
        var turned = Self.keys((0..<3_000).map { .real(Double($0)) } + [.real(-1)], batchSize: 1_000)
        let answers = (broken.distinct(), turned.distinct())
        #expect(answers == (false, false))
    }

    @Test func aRepeatFarFromItsFirstIsFound() {
        var keys = Self.keys((0..<200_000).map { .real(Double($0)) } + [.integer(70_001)])
        let repeated = !keys.distinct()
        #expect(repeated, "70001 as an integer is the stored double 70001.0, met 130,000 keys earlier")
        var last = Self.keys([.real(199_999)] + (0..<200_000).map { .real(Double($0)) })
        let lastRepeated = !last.distinct()
        #expect(lastRepeated)
    }

    @Test func aKeyEqualToTheOneBeforeIsARepeatWithinABatchOrAcrossTwo() {
        var within = Self.keys([.real(1), .real(2), .real(2), .real(3)])
        var across = Self.keys([.real(1), .real(2), .real(2), .real(3)], batchSize: 2)
        var numerically = Self.keys([.real(1), .integer(1)], batchSize: 1)
        let answers = (within.distinct(), across.distinct(), numerically.distinct())
        #expect(answers == (false, false, false))
    }

    @Test func textKeysInOrderAreDistinctAndTextEqualToANumberIsARepeat() {
        let entity = EntityDescription(name: "T", tableName: "t", attributes: [AttributeDescription(name: "k", type: .text, isOptional: false)],
                                       uniqueKey: ["k"], tombstoneAttributes: ["k"])
        let batch = RecordBatch.make(texts: ["a", "b", "c"])
        var ordered = StagedKeys(entity: entity, columns: [0], keyPositions: [0])
        ordered.append(batch, records: [0, 1, 2])
        // An integer 1 in a text column is stored as "1": equal to the text "1", though they differ as values.
        var mixed = StagedKeys(entity: entity, columns: [0], keyPositions: [0])
        var numbers = RecordBatch.make(texts: ["0", "1"])
        numbers.append(.integer(1))
        numbers.commitRecord(RecordOrigin(recordIndex: 2, line: 1, column: 1))
        mixed.append(numbers, records: [0, 1, 2])
        let answers = (ordered.distinct(), mixed.distinct())
        #expect(answers == (true, false))
    }

    @Test func pastTheLimitOrWithAKeyTheHashCannotVouchForTheDedupeRuns() {
        var bounded = Self.keys(Self.shuffled(11), limit: 10)
        var within = Self.keys(Self.shuffled(10), limit: 10)
        var null = Self.keys([.real(1), .null])
        var nan = Self.keys([.real(1), .real(.nan), .real(2)])
        let answers = (bounded.distinct(), within.distinct(), null.distinct(), nan.distinct())
        #expect(answers == (false, true, false, false))
    }
}

extension RecordBatch {
    /// A one-column batch of the texts `values`.
    static func make(texts values: [String]) -> RecordBatch {
        var batch = RecordBatch(columns: [0], keyPositions: [0])
        for value in values {
            let text = batch.appendText { arena in
                arena.append(contentsOf: value.utf8)
                return true
            }
            batch.append(text ?? .null)
            batch.commitRecord(RecordOrigin(recordIndex: batch.count, line: 1, column: 1))
        }
        return batch
    }
}
