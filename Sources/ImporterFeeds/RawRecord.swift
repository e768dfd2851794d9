import ImporterModel

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
    /// How many values the feed had for this field in this record (0 when absent); above 1 for a
    /// repeated element or a JSON array of values, combined by the field's `RepeatedValues`.
    public var occurrences: Int32 = 0

    public init(kind: RawKind = .absent, start: Int32 = 0, count: Int32 = 0, line: Int32 = 0, column: Int32 = 0) {
        self.kind = kind
        self.start = start
        self.count = count
        self.line = line
        self.column = column
    }
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
    /// A parent's record that stands for no child (child mode: its array of children was absent,
    /// so its stored children are kept): only the parent's fields are filled.
    public var isParentOnly = false
    /// With `isParentOnly`: the parent had no child element (XML), which is an empty list when the
    /// feed has children elsewhere, and says nothing when it has none anywhere.
    public var mayBeEmptyList = false
    /// In child mode, the index of the parent record in its feed (`index` is then the child's
    /// place in its parent's array).
    public var parentIndex = 0
    /// A child of children: its place in each array above its own, innermost first.
    public var enclosingPlaces: [Int] = []
    public var bytes: [UInt8] = []
    public var slots: [RawSlot]
    /// Per slot: what several values of its field in one record become (`fill` applies it).
    public var repeated: [RepeatedValues]

    public init(slotCount: Int, repeated: [RepeatedValues]? = nil) {
        slots = Array(repeating: RawSlot(), count: slotCount)
        self.repeated = repeated ?? Array(repeating: .reject, count: slotCount)
        bytes.reserveCapacity(4096)
    }

    /// Takes the values of `slots` from `source` (their bytes appended): a child's fields read
    /// from its parent. A slot absent in `source` is left as it is.
    public mutating func copySlots(_ copied: [Int], from source: RawRecord) {
        for slot in copied where source.slots[slot].kind != .absent {
            var value = source.slots[slot]
            let start = Int(value.start)
            value.start = Int32(bytes.count)
            bytes.append(contentsOf: source.bytes[start..<start + Int(value.count)])
            slots[slot] = value
        }
    }

    /// Clears the record for reuse, keeping capacity.
    @inline(__always)
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        enclosingPlaces.removeAll(keepingCapacity: true)
        isParentOnly = false
        mayBeEmptyList = false
        for i in slots.indices {
            slots[i].kind = .absent
            slots[i].occurrences = 0
        }
    }

    /// Records one value of the field of `slot`, whose bytes a reader has just appended to `bytes`
    /// (`value.start` and `value.count` locate them). The first value fills the slot; further ones
    /// are combined by the slot's `RepeatedValues`: `reject` and `first` keep the first (the mapper
    /// rejects a `reject` slot with more than one value), `last` the newest, `join` appends the
    /// text, `all` keeps a JSON array (from the first value on).
    public mutating func fill(_ slot: Int, with value: RawSlot) {
        let previous = slots[slot]
        var value = value
        value.occurrences = previous.occurrences + 1
        let policy = slot < repeated.count ? repeated[slot] : .reject
        switch policy {
        case .all, .set:
            slots[slot] = appendingToArray(previous, value)
            return
        default: break
        }
        guard previous.occurrences > 0 else {
            slots[slot] = value
            return
        }
        // A value that is an object or array makes the field composite, whatever its place.
        if value.kind == .composite || previous.kind == .composite {
            slots[slot].kind = .composite
            slots[slot].occurrences = value.occurrences
            return
        }
        switch policy {
        case .reject, .first, .all, .set:
            slots[slot].occurrences = value.occurrences
        case .last:
            slots[slot] = value
        case .join(let separator):
            if value.kind == .null { slots[slot].occurrences = value.occurrences; return }
            if previous.kind == .null { slots[slot] = value; return }
            var joined = previous
            joined.kind = .string
            joined.occurrences = value.occurrences
            joined.start = Int32(bytes.count)
            bytes.append(contentsOf: valueText(previous))
            bytes.append(contentsOf: separator.utf8)
            bytes.append(contentsOf: valueText(value))
            joined.count = Int32(bytes.count) - joined.start
            slots[slot] = joined
        }
    }

    /// Records an empty array as the field's value: one null, or `[]` under `repeated: all`.
    public mutating func fillEmpty(_ slot: Int, line: Int32, column: Int32) {
        var value = RawSlot(kind: .null, line: line, column: column)
        if slot < repeated.count, repeated[slot] == .all || repeated[slot] == .set, slots[slot].occurrences == 0 {
            value.kind = .string
            value.start = Int32(bytes.count)
            bytes.append(contentsOf: "[]".utf8)
            value.count = 2
            value.occurrences = 1
            slots[slot] = value
            return
        }
        fill(slot, with: value)
    }

    /// The bytes of a scalar slot's value as text (`true`, `null`, the number or the string).
    private func valueText(_ slot: RawSlot) -> [UInt8] {
        switch slot.kind {
        case .absent: []
        case .null: Array("null".utf8)
        case .boolTrue: Array("true".utf8)
        case .boolFalse: Array("false".utf8)
        case .composite: []
        case .number, .string: Array(bytes[Int(slot.start)..<Int(slot.start + slot.count)])
        }
    }

    /// `previous` (a JSON array's text, or absent) with `value` appended as a JSON element.
    private mutating func appendingToArray(_ previous: RawSlot, _ value: RawSlot) -> RawSlot {
        guard value.kind != .composite, previous.kind != .composite else {
            var composite = value
            composite.kind = .composite
            return composite
        }
        var element: [UInt8] = []
        switch value.kind {
        case .string: JSONText.appendString(valueText(value), to: &element)
        default: element = valueText(value)
        }
        var array = previous.occurrences == 0 ? value : previous
        array.kind = .string
        array.occurrences = value.occurrences
        // A previous `[]` (an empty array) holds no element to follow with a comma.
        let previousText = previous.occurrences == 0 ? [] : valueText(previous)
        let head: [UInt8] = previousText.count <= 2 ? Array("[".utf8) : Array(previousText.dropLast()) + Array(",".utf8)
        array.start = Int32(bytes.count)
        bytes.append(contentsOf: head)
        bytes.append(contentsOf: element)
        bytes.append(UInt8(ascii: "]"))
        array.count = Int32(bytes.count) - array.start
        return array
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
    /// In child mode: the pointers of the arrays from each record down to the children (one for
    /// children, more for children of children), so a child's reject names
    /// `<pointer>/<parent>/<array>/<place>…/<children>/<place>/<field>`.
    public var childrenPointers: [String]?
    /// For formats whose header names their columns (CSV): the names, for messages about the
    /// fields it lacks.
    public var columns: [String]?

    public init(supplied: [Bool], declaredCount: Int? = nil, recordsPointer: String? = nil, columns: [String]? = nil) {
        self.supplied = supplied
        self.declaredCount = declaredCount
        self.recordsPointer = recordsPointer
        self.columns = columns
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
    /// The fields the records hold that no requested field reads, each once, in the order met
    /// (readers that cannot tell give none).
    var unmappedFields: [UnmappedField] { get }
}

extension RecordReader {
    public var unmappedFields: [UnmappedField] { [] }
}

/// A field of a feed's records that its mapping does not read: a member (`/properties/felt`, by
/// JSON pointer below the record) or a column, with the first record that has it (0-based).
public struct UnmappedField: Sendable, Equatable {
    public var name: String
    public var record: Int

    public init(name: String, record: Int) {
        self.name = name
        self.record = record
    }
}

/// JSON text escaping for values a reader combines (`repeated: all`).
enum JSONText {
    static func appendString(_ utf8: [UInt8], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
