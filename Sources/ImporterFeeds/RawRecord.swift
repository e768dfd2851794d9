/// The kind of a raw field value as a reader found it, before any mapping.
public enum RawKind: UInt8, Sendable {
    /// The feed does not have this field in this record.
    case absent
    case null
    case boolTrue
    case boolFalse
    /// A number token; its text is in the record's bytes.
    case number
    /// A string; its decoded UTF-8 is in the record's bytes.
    case string
    /// An object or array where a single value was expected (the mapper rejects the record).
    case composite
}

/// One field of a raw record: its kind, its bytes in `RawRecord.bytes`, and where it was in the feed.
public struct RawSlot: Sendable {
    public var kind: RawKind = .absent
    public var start: Int32 = 0
    public var count: Int32 = 0
    public var line: Int32 = 0
    public var column: Int32 = 0
}

/// A record as a reader produced it: one slot per requested field, bytes not yet interpreted.
///
/// Readers fill a caller-owned `RawRecord` in place for each record (no allocation per record once
/// the buffers have grown); slots are in the order of the field names the mapper requested.
public struct RawRecord: Sendable {
    /// 0-based index of the record in its feed.
    public var index: Int = 0
    public var line: Int = 0
    public var column: Int = 0
    public var bytes: [UInt8] = []
    public var slots: [RawSlot]

    public init(slotCount: Int) {
        slots = Array(repeating: RawSlot(), count: slotCount)
        bytes.reserveCapacity(4096)
    }

    /// Clears the record for reuse, keeping capacity.
    @inline(__always)
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i].kind = .absent }
    }

    /// The slot's bytes as a string, for messages and rejects.
    public func text(of slot: Int) -> String {
        let s = slots[slot]
        switch s.kind {
        case .absent: return ""
        case .null: return "null"
        case .composite: return "{…}"
        case .boolTrue: return "true"
        case .boolFalse: return "false"
        case .number, .string:
            return String(decoding: bytes[Int(s.start)..<Int(s.start + s.count)], as: UTF8.self)
        }
    }
}

/// What a reader learned from a feed before its first record.
public struct FeedHeader: Sendable, Equatable {
    /// For each requested field: whether the feed supplies it at all. Attributes fed by a field the
    /// feed does not supply are left untouched on existing records.
    public var supplied: [Bool]
    /// The number of records the feed declares, if it declares one.
    public var declaredCount: Int?
    /// For JSON arrays of records: the JSON pointer of the array (`""` for the document's root),
    /// so a reject can name `<pointer>/<index>/<field>`.
    public var recordsPointer: String?

    public init(supplied: [Bool], declaredCount: Int? = nil, recordsPointer: String? = nil) {
        self.supplied = supplied
        self.declaredCount = declaredCount
        self.recordsPointer = recordsPointer
    }
}

/// A streaming reader of one feed format (a class: it owns its buffer and source).
///
/// `open` reads up to the first record and says which requested fields the feed supplies;
/// `next` fills `record` with the next record and returns false at the end of the feed, after
/// checking what can only be checked at the end (a declared count, trailing garbage).
public protocol RecordReader: AnyObject {
    func open(requesting fields: [String]) throws(FeedError) -> FeedHeader
    func next(into record: inout RawRecord) throws(FeedError) -> Bool
    /// Bytes consumed so far, and the total when known: for progress.
    var progress: (read: Int, total: Int?) { get }
}
