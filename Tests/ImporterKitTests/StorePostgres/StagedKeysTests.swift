@testable import ImporterModel
@testable import ImporterStorePostgres
import Testing

/// `StagedKeys` tells the set-based apply the staged keys are distinct only when no two can be
/// equal, however far apart they were staged, and gives up (the dedupe runs) past its limit.
@Suite struct StagedKeysTests {
    static func keys(_ values: [BatchValue], limit: Int = StagedKeys.defaultLimit) -> StagedKeys {
        var keys = StagedKeys(entity: DirectKeysTests.entity, columns: [0], keyPositions: [0], limit: limit)
        let batch = DirectKeysTests.batch(values)
        for record in 0..<batch.count { keys.append(batch, record: record) }
        return keys
    }

    @Test func manyDistinctKeysAreDistinct() {
        var keys = Self.keys((0..<200_000).map { .real(Double($0) * 0.5) })
        let distinct = keys.distinct()
        #expect(distinct)
    }

    @Test func aRepeatFarFromItsFirstIsFound() {
        var keys = Self.keys((0..<200_000).map { .real(Double($0)) } + [.integer(70_001)])
        let repeated = !keys.distinct()
        #expect(repeated, "70001 as an integer is the stored double 70001.0, met 130,000 keys earlier")
        var last = Self.keys([.real(199_999)] + (0..<200_000).map { .real(Double($0)) })
        let lastRepeated = !last.distinct()
        #expect(lastRepeated)
    }

    @Test func pastTheLimitOrWithAKeyTheHashCannotVouchForTheDedupeRuns() {
        var bounded = Self.keys((0..<11).map { .real(Double($0)) }, limit: 10)
        var within = Self.keys((0..<10).map { .real(Double($0)) }, limit: 10)
        var null = Self.keys([.real(1), .null])
        let answers = (bounded.distinct(), within.distinct(), null.distinct())
        #expect(answers == (false, true, false))
    }
}
