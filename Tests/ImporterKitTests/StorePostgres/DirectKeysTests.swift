@testable import ImporterModel
@testable import ImporterStorePostgres
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
}
