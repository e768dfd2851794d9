import Foundation
import ImporterModel

/// Reads JSON objects as records: the elements of an array (at the document's root, or at a JSON
/// pointer such as `/data/items`), or one object per line (NDJSON).
///
/// Fields are object keys (`energy`) or JSON pointers into the record (RFC 6901: `/location/lat`,
/// array elements by index `/geometry/coordinates/0`, `~1` for `/` and `~0` for `~` in keys). A
/// field missing from a record is absent (told apart from an explicit null). An array of scalars
/// where a field is expected gives the field several values, combined by its `repeated` rule; an
/// object there is a bad record (the mapper rejects it), not a bad file. A key repeated within one
/// object counts as another value of its field. `../name` is a member of the object holding the
/// records' array (`../../name` of the object around that one): read as the walk to the records
/// passes it, so only members written before the records can be read (a later one is absent).
public final class JSONRecordsReader: RecordReader {
    let scanner: JSONScanner
    /// The pointer's reference tokens, unescaped; empty for the root.
    private let recordsPath: [String]
    /// The pointer as written (`""` for the root), for locations; nil for NDJSON.
    private let recordsPointer: String?
    private let lines: Bool
    var isLines: Bool { lines }
    var tree = FieldTree()
    private enum State { case notOpened, inArray, finished }
    private var state = State.notOpened
    var index = 0
    /// Object nesting around the records' array, closed (and checked) after the last record.
    private var enclosing = 0
    /// The key being read (reused across records).
    private var key: [UInt8] = []
    /// Per field tree node (`FieldTree.id`), the members met that no field reads.
    private var unmappedKeys: [[[UInt8]]] = []
    public private(set) var unmappedFields: [UnmappedField] = []
    /// A field that is a member of an object enclosing the records (`../last_updated`): its slot,
    /// the enclosing object (0: the root), the member's name and the value read, if any.
    private struct EnclosingField {
        var slot: Int
        var level: Int
        var name: [UInt8]
        var value: (kind: RawKind, bytes: [UInt8], line: Int32, column: Int32)?
    }
    private var enclosingFields: [EnclosingField] = []
    /// Child mode (`init(source:records:children:)`): the children read from the current parent.
    var children: JSONChildRecords?
    var childBuffer: [RawRecord] = []
    var parentRecord = RawRecord(slotCount: 0)

    /// `records`: a JSON pointer to the array of records (`json`), nil for the root; `lines`: NDJSON.
    public init(source: ByteSource, records: String?, lines: Bool) throws(FeedError) {
        scanner = JSONScanner(source: source)
        self.lines = lines
        guard let records, !records.isEmpty, records != "/" else {
            recordsPath = []
            recordsPointer = lines ? nil : ""
            return
        }
        guard records.hasPrefix("/") else {
            throw FeedError.shape(SourceLocation(source: source.name, line: 1, column: 1), "records '\(records)' is not a JSON pointer (it starts with /)")
        }
        recordsPath = Self.referenceTokens(records)
        recordsPointer = lines ? nil : records
    }

    public var progress: (read: Int, total: Int?) { (scanner.source.bytesRead, scanner.source.totalBytes) }

    /// The unescaped reference tokens of a JSON pointer that starts with `/` (RFC 6901: `~1` → `/`,
    /// `~0` → `~`).
    static func referenceTokens(_ pointer: String) -> [String] {
        pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        if let children {
            try openChildren(requesting: fields)
            var header = FeedHeader(supplied: Array(repeating: true, count: fields.count), recordsPointer: recordsPointer)
            header.childrenPointers = (children.enclosing + [children.path]).map { tokens in
                "/" + tokens.map { $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined(separator: "/")
            }
            return header
        }
        for (slot, field) in fields.enumerated() {
            if let (up, name) = Self.enclosingMember(field) {
                guard !lines, up <= recordsPath.count else {
                    throw FeedError.shape(SourceLocation(source: scanner.source.name, line: 1, column: 1),
                                          Self.enclosingProblem(field, up: up, records: lines ? nil : recordsPath.count))
                }
                enclosingFields.append(EnclosingField(slot: slot, level: recordsPath.count - up, name: Array(name.utf8)))
                continue
            }
            tree.insert(field.hasPrefix("/") ? Self.referenceTokens(field) : [field], slot: slot)
        }
        var nodes = 0
        tree.number(&nodes)
        unmappedKeys = Array(repeating: [], count: nodes)
        if !lines { try openArray() }
        return FeedHeader(supplied: Array(repeating: true, count: fields.count), recordsPointer: recordsPointer)
    }

    /// `../../name` as (2, "name"); nil for a field inside the record.
    static func enclosingMember(_ field: String) -> (up: Int, name: String)? {
        var rest = Substring(field)
        var up = 0
        while rest.hasPrefix("../") {
            up += 1
            rest = rest.dropFirst(3)
        }
        return up > 0 ? (up, String(rest)) : nil
    }

    /// Why `field` cannot be read: NDJSON (`records` nil) has no enclosing object; a document
    /// with records `records` objects deep has that many.
    static func enclosingProblem(_ field: String, up: Int, records: Int?) -> String {
        guard let records else { return "field '\(field)': an NDJSON line is the record, with no object around it" }
        return "field '\(field)' climbs \(up) object\(up == 1 ? "" : "s") out of the records, which have \(records) around them "
            + "(each '../' is one object enclosing the records' array)"
    }

    /// Walks to the records' array: through the objects named by the pointer, skipping other
    /// members, but reading those an enclosing field names.
    func openArray() throws(FeedError) {
        for (level, key) in recordsPath.enumerated() {
            try scanner.unit { () throws(ScanError) in
                guard try scanner.peek() != 0 else { throw scanner.syntaxError(expected: "a JSON value (the feed is empty)") }
                try scanner.expect(UInt8(ascii: "{"), "an object containing '\(key)'")
            }
            enclosing += 1
            var first = true
            while true {
                let matched: Bool? = try scanner.unit { () throws(ScanError) -> Bool? in
                    if try scanner.peek() == UInt8(ascii: "}") { return nil }
                    if !first { try scanner.expect(UInt8(ascii: ","), "',' or '}' in an object") }
                    var name: [UInt8] = []
                    try scanner.string(into: &name)
                    try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                    if name == Array(key.utf8) { return true }
                    if let field = enclosingFields.firstIndex(where: { $0.level == level && $0.name == name }) {
                        try readEnclosing(field)
                    } else {
                        try scanner.skipValue()
                    }
                    return false
                }
                first = false
                guard let matched else {
                    throw FeedError.shape(scanner.location(), "no member '\(key)' on the path to the records (\(pointerText))")
                }
                if matched { break }
            }
        }
        // `null` where the records should be is not an empty feed (`[]` is): an error answer, a
        // changed shape, never something a sync may read as "every record is gone".
        try scanner.unit { () throws(ScanError) in
            let byte = try scanner.peek()
            if byte == 0 { throw scanner.syntaxError(expected: "a JSON value (the feed is empty)") }
            try scanner.expect(UInt8(ascii: "["), "an array of records at \(pointerText)")
        }
        state = .inArray
    }

    private var pointerText: String { recordsPath.isEmpty ? "the root" : recordsPointer ?? "" }

    /// Keeps the value of the member at the scanner for `enclosingFields[field]`: a scalar as it
    /// would be in a record, an object or array as a composite value (the mapper rejects it).
    private func readEnclosing(_ field: Int) throws(ScanError) {
        var scratch = RawRecord(slotCount: 0)
        let line = Int32(truncatingIfNeeded: scanner.line), column = Int32(truncatingIfNeeded: scanner.currentColumn)
        if let slot = try scanner.scalarSlot(into: &scratch) {
            let bytes = Array(scratch.bytes[Int(slot.start)..<Int(slot.start + slot.count)])
            enclosingFields[field].value = (slot.kind, bytes, slot.line, slot.column)
        } else {
            try scanner.skipValue()
            enclosingFields[field].value = (.composite, [], line, column)
        }
    }

    /// After the records: the rest of the enclosing objects, then the end of input.
    private func close() throws(FeedError) {
        while enclosing > 0 {
            try scanner.unit { () throws(ScanError) in
                while try scanner.peek() == UInt8(ascii: ",") {
                    scanner.position += 1
                    var name: [UInt8] = []
                    try scanner.string(into: &name)
                    try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                    try scanner.skipValue()
                }
                try scanner.expect(UInt8(ascii: "}"), "',' or '}' in an object")
            }
            enclosing -= 1
        }
        try scanner.unit { () throws(ScanError) in
            guard try scanner.peek() == 0 else { throw scanner.syntaxError(expected: "the end of input") }
        }
        state = .finished
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        if children != nil { return try nextChild(into: &record) }
        return try nextRecord(into: &record)
    }

    /// The next record of the records' array (in child mode, the next parent).
    func nextRecord(into record: inout RawRecord) throws(FeedError) -> Bool {
        switch state {
        case .finished: return false
        case .notOpened where !lines: return false
        default: break
        }
        let index = self.index
        let more: Bool = try scanner.unit { () throws(ScanError) -> Bool in
            record.reset()
            children?.count = 0
            children?.arrayPresent = false
            let byte = try scanner.peek()
            if lines {
                if byte == 0 { return false }
            } else {
                if byte == UInt8(ascii: "]") {
                    scanner.position += 1
                    return false
                }
                if index > 0 { try scanner.expect(UInt8(ascii: ","), "',' or ']' after a record") }
            }
            _ = try scanner.peek()
            let line = scanner.line
            let column = scanner.currentColumn
            guard try scanner.peek() == UInt8(ascii: "{") else {
                throw ScanError.invalid(.shape(scanner.location(recordIndex: index), "record \(index) is not a JSON object"))
            }
            for field in enclosingFields {
                guard let value = field.value else { continue }
                let start = Int32(record.bytes.count)
                record.bytes.append(contentsOf: value.bytes)
                record.fill(field.slot, with: RawSlot(kind: value.kind, start: start, count: Int32(value.bytes.count), line: value.line, column: value.column))
            }
            try readObject(tree, into: &record, depth: 0)
            if lines { try endOfLine() }
            record.index = index
            record.line = line
            record.column = column
            return true
        }
        if more {
            self.index += 1
            return true
        }
        if lines {
            state = .finished
        } else {
            try close()
        }
        return false
    }

    /// NDJSON: after a record, only spaces until the end of the line (or input).
    private func endOfLine() throws(ScanError) {
        while true {
            guard scanner.position < scanner.count else {
                if scanner.atEnd { return }
                throw .needMore
            }
            switch scanner.storage[scanner.position] {
            case 0x20, 0x09, 0x0D: scanner.position += 1
            case 0x0A: return
            default: throw scanner.syntaxError(expected: "the end of the line after a record (NDJSON has one object per line)")
            }
        }
    }

    /// Reads an object, filling the slots its keys lead to and skipping the rest.
    func readObject(_ node: FieldTree, into record: inout RawRecord, depth: Int) throws(ScanError) {
        guard depth < 64 else { throw scanner.syntaxError(expected: "nesting shallower than 64 levels") }
        try scanner.expect(UInt8(ascii: "{"), "an object")
        if try scanner.peek() == UInt8(ascii: "}") {
            scanner.position += 1
            return
        }
        repeat {
            key.removeAll(keepingCapacity: true)
            try scanner.string(into: &key)
            try scanner.expect(UInt8(ascii: ":"), "':' after a key")
            guard let child = node.member(key) else {
                if node.id >= 0 { noteUnmapped(node) }
                try scanner.skipValue()
                continue
            }
            try readValue(child, into: &record, depth: depth)
        } while try scanner.separator(close: UInt8(ascii: "}"), context: "in an object")
    }

    /// Notes member `key` of `node`'s object as unmapped, the first time it is met.
    private func noteUnmapped(_ node: FieldTree) {
        for known in unmappedKeys[node.id] where known == key { return }
        unmappedKeys[node.id].append(key)
        let token = String(decoding: key, as: UTF8.self).replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        unmappedFields.append(UnmappedField(name: node.path + "/" + token, record: index))
    }

    /// Reads the value a field tree node addresses: a field's value into its slot, or the objects
    /// and arrays on the way to deeper fields.
    private func readValue(_ node: FieldTree, into record: inout RawRecord, depth: Int) throws(ScanError) {
        if node.childLevel > 0 { return try readChildren(level: node.childLevel, depth: depth) }
        if let slot = node.slot, let value = try scanner.scalarSlot(into: &record) {
            record.fill(slot, with: value)
            return
        }
        switch try scanner.peek() {
        case UInt8(ascii: "["):
            try readArray(node, into: &record, depth: depth + 1)
        case UInt8(ascii: "{"):
            if let slot = node.slot { record.fill(slot, with: compositeSlot()) }
            if node.isLeaf { try scanner.skipValue() } else { try readObject(node, into: &record, depth: depth + 1) }
        default:
            try scanner.skipValue()
        }
    }

    /// Reads an array. Its elements are addressed by index (`/coordinates/0`, RFC 6901); when the
    /// array itself is a field, each scalar element is one more value of it (combined by the
    /// field's `repeated` rule), an element that is an object or array makes it composite, and an
    /// empty array is one null (`[]` under `repeated: all`).
    private func readArray(_ node: FieldTree, into record: inout RawRecord, depth: Int) throws(ScanError) {
        guard depth < 64 else { throw scanner.syntaxError(expected: "nesting shallower than 64 levels") }
        let location = compositeSlot()
        try scanner.expect(UInt8(ascii: "["), "an array")
        if try scanner.peek() == UInt8(ascii: "]") {
            scanner.position += 1
            if let slot = node.slot { record.fillEmpty(slot, line: location.line, column: location.column) }
            return
        }
        var index = 0
        repeat {
            let child = node.isLeaf ? nil : node.member(Self.indexToken(index))
            if let slot = node.slot {
                if let value = try scanner.scalarSlot(into: &record) {
                    record.fill(slot, with: value)
                    if let leaf = child?.slot { record.fill(leaf, with: value) }
                } else {
                    record.fill(slot, with: compositeSlot())
                    if let child { try readValue(child, into: &record, depth: depth) } else { try scanner.skipValue(depth: depth) }
                }
            } else if let child {
                try readValue(child, into: &record, depth: depth)
            } else {
                try scanner.skipValue(depth: depth)
            }
            index += 1
        } while try scanner.separator(close: UInt8(ascii: "]"), context: "in an array")
    }

    /// A composite value's slot at the read position.
    func compositeSlot() -> RawSlot {
        RawSlot(kind: .composite, line: Int32(truncatingIfNeeded: scanner.line), column: Int32(truncatingIfNeeded: scanner.currentColumn))
    }

    /// The reference token of array index `index` as bytes (`0`, `1`, … without leading zeros).
    private static func indexToken(_ index: Int) -> [UInt8] {
        index < indexTokens.count ? indexTokens[index] : Array(String(index).utf8)
    }

    private static let indexTokens: [[UInt8]] = (0..<64).map { Array(String($0).utf8) }
}
