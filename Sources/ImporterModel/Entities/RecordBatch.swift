import Foundation

/// A value in a `RecordBatch`: text lives in the batch's byte arena, so filling a batch allocates
/// nothing per record and the upserter binds text without copying (`SQLITE_STATIC`).
/// A valid pointer for empty buffers, whose `baseAddress` may be nil (never read: counts are 0).
@usableFromInline nonisolated(unsafe) package let emptyBytes: UnsafePointer<UInt8> = UnsafePointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

public enum BatchValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(start: Int32, count: Int32)
}

/// Where a mapped record came from, for rejects and duplicate reports.
public struct RecordOrigin: Sendable, Equatable {
    public var recordIndex: Int
    public var line: Int32
    public var column: Int32

    public init(recordIndex: Int, line: Int32, column: Int32) {
        self.recordIndex = recordIndex
        self.line = line
        self.column = column
    }
}

/// Mapped records of one entity waiting to be upserted: for each record, the values of the
/// attributes the feed supplies (`columns`, in entity order), record-major.
///
/// The batch is the narrow interface between the mapper and the store: it holds typed values, not
/// feed syntax, and it is reused across batches (cleared, capacity kept).
public struct RecordBatch: Sendable {
    /// Indices into the entity's attributes of the values each record carries.
    public let columns: [Int]
    /// Positions in `columns` of the unique key attributes, in key order.
    public let keyPositions: [Int]
    public private(set) var values: [BatchValue] = []
    public private(set) var arena: [UInt8] = []
    public private(set) var origins: [RecordOrigin] = []
    /// The index among the run's feeds of the feed the records come from.
    public var feed = 0
    /// What that feed's mapping does with a key it repeats.
    public var duplicates: DuplicateKeys = .last
    /// The strict key order a pass over the records found (`noteStrictKeyOrder`), with the count
    /// it was found for: any record added or removed since voids it.
    private var keyOrderHint: (count: Int, order: KeyOrder)?
    /// Per record, the id of the stored row that held exactly its key and values when the run
    /// began, 0 for none (`noteStoredUnchanged`); empty when not looked for, or voided by a change.
    private var storedUnchangedHint: [Int64] = []

    /// Records in strictly ascending or strictly descending key order (no key repeated).
    public enum KeyOrder: Sendable {
        case ascending, descending
    }

    public init(columns: [Int], keyPositions: [Int], capacity: Int = 0) {
        self.columns = columns
        self.keyPositions = keyPositions
        values.reserveCapacity(capacity * columns.count)
        origins.reserveCapacity(capacity)
        arena.reserveCapacity(capacity * 32)
    }

    public var count: Int { origins.count }
    @inlinable public var width: Int { columns.count }
    public var isEmpty: Bool { origins.isEmpty }

    /// The strict key order noted for the records the batch holds, nil when none was noted.
    public var strictKeyOrder: KeyOrder? {
        guard let keyOrderHint, keyOrderHint.count == count else { return nil }
        return keyOrderHint.order
    }

    /// The records' strict key order, found at one comparison per record: nil as soon as two
    /// neighbours tie or turn (a shuffled batch shows it within a few records), and for fewer
    /// than two records.
    public func findStrictKeyOrder() -> KeyOrder? {
        guard count > 1 else { return nil }
        let first = compareKeys(0, 1)
        guard first != 0 else { return nil }
        for index in 2..<max(count, 2) {
            let order = compareKeys(index - 1, index)
            if order == 0 || (order < 0) != (first < 0) { return nil }
        }
        return first < 0 ? .ascending : .descending
    }

    /// Notes that the records, as they are now, are in strictly `order` of their keys, so that a
    /// later reader need not compare them again (the caller has).
    public mutating func noteStrictKeyOrder(_ order: KeyOrder) {
        keyOrderHint = (count, order)
    }

    /// What `noteStoredUnchanged` noted for the records the batch holds, nil when nothing was.
    public var storedUnchanged: [Int64]? {
        storedUnchangedHint.count == count && count > 0 ? storedUnchangedHint : nil
    }

    /// Notes, per record, the id of the stored row found to hold exactly its key and values before
    /// the run (0: none), as an `UnchangedRowMatcher` found it ahead of the store; any record added
    /// or removed since voids it.
    public mutating func noteStoredUnchanged(_ ids: [Int64]) {
        storedUnchangedHint = ids
    }

    public mutating func removeAll() {
        keyOrderHint = nil
        storedUnchangedHint.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
        origins.removeAll(keepingCapacity: true)
    }

    // MARK: Filling (the mapper)

    @inline(__always)
    package mutating func append(_ value: BatchValue) { values.append(value) }

    /// Appends text and returns its value.
    @inline(__always)
    package mutating func appendText(_ base: UnsafePointer<UInt8>, count: Int) -> BatchValue {
        let start = Int32(arena.count)
        arena.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        return .text(start: start, count: Int32(count))
    }

    /// Gives direct access to the arena for writers that produce text in place; returns the value
    /// for the bytes appended by `body`.
    @inline(__always)
    package mutating func appendText(_ body: (inout [UInt8]) -> Bool) -> BatchValue? {
        let start = arena.count
        guard body(&arena) else {
            arena.removeSubrange(start...)
            return nil
        }
        return .text(start: Int32(start), count: Int32(arena.count - start))
    }

    @inline(__always)
    package mutating func commitRecord(_ origin: RecordOrigin) { origins.append(origin) }

    /// Drops the values appended since the last committed record.
    package mutating func discardPartialRecord() {
        values.removeSubrange((origins.count * width)...)
    }

    /// The same records with only the attributes `columns` (a subset of this batch's columns, in
    /// the same order); `keyPositions` index the new columns.
    public func projected(to columns: [Int], keyPositions: [Int]) -> RecordBatch {
        var batch = RecordBatch(columns: columns, keyPositions: keyPositions, capacity: count)
        let positions = columns.compactMap { self.columns.firstIndex(of: $0) }
        batch.arena = arena
        for record in 0..<count {
            for position in positions { batch.values.append(value(record: record, position: position)) }
        }
        batch.origins = origins
        batch.feed = feed
        batch.duplicates = duplicates
        return batch
    }

    /// Appends record `record` of `batch` (a batch of the same columns), its text copied into
    /// this batch's arena, with its origin.
    @inline(__always)
    public mutating func appendRecord(_ record: Int, of batch: RecordBatch) {
        batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            for position in 0..<batch.width {
                let value = batch.value(record: record, position: position)
                guard case .text(let start, let count) = value else {
                    append(value)
                    continue
                }
                append(appendText(base + Int(start), count: Int(count)))
            }
        }
        commitRecord(batch.origins[record])
    }

    /// The records at `records` (ascending indices) in a batch of their own; a strict key order
    /// noted for this batch holds for them too.
    public func keeping(_ records: [Int]) -> RecordBatch {
        var batch = RecordBatch(columns: columns, keyPositions: keyPositions, capacity: records.count)
        batch.feed = feed
        batch.duplicates = duplicates
        for record in records { batch.appendRecord(record, of: self) }
        if let order = strictKeyOrder { batch.noteStrictKeyOrder(order) }
        return batch
    }

    // MARK: Reading (the upserter)

    /// Where record `record` is, as the duplicates report names it.
    public func feedRecord(_ record: Int) -> FeedRecord {
        let origin = origins[record]
        return FeedRecord(feed: feed, recordIndex: origin.recordIndex, line: Int(origin.line), column: Int(origin.column))
    }

    /// The record's unique key values, in key order.
    public func keyValues(_ record: Int) -> [Value] {
        keyPositions.map { publicValue(record: record, position: $0) }
    }

    @inlinable @inline(__always)
    public func value(record: Int, position: Int) -> BatchValue {
        values[record * width + position]
    }

    public func text(_ start: Int32, _ count: Int32) -> String {
        String(decoding: arena[Int(start)..<Int(start + count)], as: UTF8.self)
    }

    /// The value as a general `Value` (for reports and the rare paths).
    public func publicValue(record: Int, position: Int) -> Value {
        switch value(record: record, position: position) {
        case .null: .null
        case .integer(let v): .integer(v)
        case .real(let v): .real(v)
        case .text(let s, let c): .text(text(s, c))
        }
    }

    /// Orders two records by their unique key as SQLite's BINARY collation and numeric comparison
    /// order them (NULL < numbers < text).
    @inlinable
    public func compareKeys(_ a: Int, _ b: Int) -> Int {
        for position in keyPositions {
            let order = Self.compare(value(record: a, position: position), value(record: b, position: position), arena)
            if order != 0 { return order }
        }
        return 0
    }

    /// Orders record `a` of batch `x` against record `b` of batch `y` by their unique key, as
    /// `compareKeys` orders two records of one batch (the batches' key positions must agree).
    @inlinable
    public static func compareKeys(_ x: RecordBatch, _ a: Int, _ y: RecordBatch, _ b: Int) -> Int {
        x.arena.withUnsafeBufferPointer { xs in
            y.arena.withUnsafeBufferPointer { ys in
                for (position, other) in zip(x.keyPositions, y.keyPositions) {
                    let order = compare(x.value(record: a, position: position), xs.baseAddress ?? emptyBytes,
                                        y.value(record: b, position: other), ys.baseAddress ?? emptyBytes)
                    if order != 0 { return order }
                }
                return 0
            }
        }
    }

    /// Two values ordered as the unique index orders them, each text in its own arena.
    @inlinable @inline(__always)
    package static func compare(_ x: BatchValue, _ xBase: UnsafePointer<UInt8>, _ y: BatchValue, _ yBase: UnsafePointer<UInt8>) -> Int {
        switch (x, y) {
        case (.text(let s1, let c1), .text(let s2, let c2)):
            let order = memcmp(xBase + Int(s1), yBase + Int(s2), Int(min(c1, c2)))
            return order != 0 ? Int(order) : Int(c1) - Int(c2)
        default: return compare(x, y, []) // no two texts: the arena is not read
        }
    }

    @inlinable @inline(__always)
    package static func compare(_ x: BatchValue, _ y: BatchValue, _ arena: [UInt8]) -> Int {
        switch (x, y) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.text(let s1, let c1), .text(let s2, let c2)):
            return arena.withUnsafeBufferPointer { buffer in
                let n = Int(min(c1, c2))
                let base = buffer.baseAddress ?? emptyBytes
                let order = memcmp(base + Int(s1), base + Int(s2), n)
                if order != 0 { return Int(order) }
                return Int(c1) - Int(c2)
            }
        case (.text, _): return 1
        case (_, .text): return -1
        case (.integer(let a), .integer(let b)):
            // Exactly: integers past 2^53 are distinct keys that doubles would merge.
            return a < b ? -1 : (a > b ? 1 : 0)
        default:
            let a = x.number, b = y.number
            return a < b ? -1 : (a > b ? 1 : 0)
        }
    }
}

extension BatchValue {
    @inlinable
    package var number: Double {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: 0
        }
    }
}
