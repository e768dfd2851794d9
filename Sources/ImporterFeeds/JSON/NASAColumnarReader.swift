import ImporterModel

/// Reads the NASA/JPL SSD API shape (the fireball API's): an object with `signature`, `count`,
/// `fields` (column names) and `data` (rows of values aligned with `fields`), streaming row by row.
///
/// Rules (see FIREBALL-FEED.md): fields are mapped by name, never by position; `count` may be a
/// string or a number and is checked against the rows at the end; a response with no records may
/// have no `fields` and no `data`; `signature.version` must have a supported major version; every
/// row must have exactly one value per field.
///
/// Guards (a snapshot that is not one must never reach a `--sync`): an object with an `error` or
/// `message` member is the API's error answer and fails with that message; a feed object without
/// `fields` and `data` fails, but for the API's own empty answer (`"count": 0`).
public final class NASAColumnarReader: RecordReader {
    public static let supportedMajorVersions = ["1"]

    private let scanner: JSONScanner
    /// `members`: reading the feed object's members (before `data`'s rows, or after them).
    private enum State { case members, inData, finished }
    private var state = State.members
    /// The layout of `fields`, once read.
    private var layout: ColumnLayout?
    /// The `fields` no requested field reads.
    public private(set) var unmappedFields: [UnmappedField] = []
    private var declaredCount: Int?
    private var countLocation: SourceLocation?
    private var rowsRead = 0
    /// Whether a `data` member was read (an array or `null`).
    private var sawData = false
    /// Where the feed object starts (for shape errors about the whole object).
    private var objectLocation: SourceLocation?

    /// `bufferSize` is the initial read buffer (it grows for larger records); small sizes exercise
    /// the refill path in tests.
    public init(source: ByteSource, bufferSize: Int = 1 << 20) {
        scanner = JSONScanner(source: source, initialCapacity: bufferSize)
    }

    public var progress: (read: Int, total: Int?) { (scanner.source.bytesRead, scanner.source.totalBytes) }

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        try scanner.unit { () throws(ScanError) in
            guard try scanner.peek() != 0 else { throw scanner.syntaxError(expected: "a JSON object (the feed is empty)") }
            objectLocation = scanner.location()
            try scanner.expect(UInt8(ascii: "{"), "'{' to start the feed object")
        }
        try readMembers(first: true, requested: fields)
        let supplied = layout?.supplied ?? Array(repeating: false, count: fields.count)
        return FeedHeader(supplied: supplied, declaredCount: declaredCount)
    }

    /// Reads members of the feed object up to `data`'s rows or the end of the feed (then checks
    /// the declared count).
    private func readMembers(first: Bool, requested: [String]) throws(FeedError) {
        state = .members
        var first = first
        while state == .members {
            try readMember(first: first, requested: requested)
            first = false
        }
        if state == .finished {
            try checkShape()
            try checkCount()
        }
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard state == .inData else { return false }
        let columnSlots = layout?.slots ?? []
        let columnCount = columnSlots.count
        let index = rowsRead
        let more: Bool = try scanner.unit { () throws(ScanError) -> Bool in
            record.reset()
            if try scanner.peek() == UInt8(ascii: "]") {
                scanner.position += 1
                return false
            }
            if index > 0 {
                try scanner.expect(UInt8(ascii: ","), "',' or ']' after a row of data")
            }
            _ = try scanner.peek()
            let line = scanner.line
            let column = scanner.currentColumn
            try scanner.expect(UInt8(ascii: "["), "'[' to start a row of data")
            var columnIndex = 0
            if try scanner.peek() == UInt8(ascii: "]") {
                scanner.position += 1
            } else {
                repeat {
                    guard columnIndex < columnCount else {
                        throw ScanError.invalid(.shape(scanner.location(recordIndex: index),
                            "row \(index) has more values than the \(columnCount) fields"))
                    }
                    try readValue(into: &record, slot: columnSlots[columnIndex], recordIndex: index)
                    columnIndex += 1
                } while try scanner.separator(close: UInt8(ascii: "]"), context: "in a row of data")
            }
            guard columnIndex == columnCount else {
                throw ScanError.invalid(.shape(SourceLocation(source: scanner.source.name, line: line, column: column, recordIndex: index),
                    "row \(index) has \(columnIndex) values but there are \(columnCount) fields"))
            }
            record.index = index
            record.line = line
            record.column = column
            return true
        }
        if more {
            rowsRead += 1
            return true
        }
        try readMembers(first: false, requested: [])
        return false
    }

    /// Reads one value of a row into `slot` (or skips it when the slot is -1).
    @inline(__always)
    private func readValue(into record: inout RawRecord, slot: Int, recordIndex: Int) throws(ScanError) {
        guard slot >= 0 else {
            let byte = try scanner.peek()
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { throw nonScalar(recordIndex) }
            try scanner.skipValue()
            return
        }
        guard try scanner.scalar(into: &record, slot: slot) else { throw nonScalar(recordIndex) }
    }

    private func nonScalar(_ recordIndex: Int) -> ScanError {
        .invalid(.shape(scanner.location(recordIndex: recordIndex), "row values must be strings, numbers or null"))
    }

    /// Reads one member of the top-level object (or its closing brace).
    private func readMember(first: Bool, requested: [String]) throws(FeedError) {
        enum Member { case end, signature, count, fields, data, error(String), other }
        var memberLocation = scanner.location()
        let member: Member = try scanner.unit { [self] () throws(ScanError) -> Member in
            if try scanner.peek() == UInt8(ascii: "}") {
                scanner.position += 1
                return .end
            }
            if !first { try scanner.expect(UInt8(ascii: ","), "',' or '}' in the feed object") }
            var key: [UInt8] = []
            _ = try scanner.peek()
            memberLocation = scanner.location()
            try scanner.string(into: &key)
            try scanner.expect(UInt8(ascii: ":"), "':' after a key")
            switch String(decoding: key, as: UTF8.self) {
            case "signature": return .signature
            case "count": return .count
            case "fields": return .fields
            case "data": return .data
            case "error", "message":
                if try scanner.peek() == UInt8(ascii: "\"") {
                    var message: [UInt8] = []
                    try scanner.string(into: &message)
                    return .error(String(decoding: message, as: UTF8.self))
                }
                try scanner.skipValue()
                return .error("'\(String(decoding: key, as: UTF8.self))' is not a string")
            default:
                try scanner.skipValue()
                return .other
            }
        }
        switch member {
        case .end:
            try scanner.unit { () throws(ScanError) in
                guard try scanner.peek() == 0 else { throw scanner.syntaxError(expected: "the end of input after the feed object") }
            }
            state = .finished
        case .signature: try readSignature()
        case .count: try readCount()
        case .fields: try readFields(requested: requested)
        case .error(let message):
            throw FeedError.errorAnswer(memberLocation, message: message)
        case .data:
            sawData = true
            guard layout != nil else {
                throw FeedError.shape(scanner.location(), "'data' appears before 'fields'; the reader needs the field names first")
            }
            let started: Bool = try scanner.unit { () throws(ScanError) -> Bool in
                if try scanner.peek() == UInt8(ascii: "n") {
                    _ = try scanner.literal()
                    return false
                }
                try scanner.expect(UInt8(ascii: "["), "'[' to start 'data'")
                return true
            }
            if started { state = .inData }
        case .other: break
        }
    }

    private func readSignature() throws(FeedError) {
        let location = scanner.location()
        let found: String? = try scanner.unit { () throws(ScanError) -> String? in
            try scanner.expect(UInt8(ascii: "{"), "an object for 'signature'")
            var version: String?
            if try scanner.peek() == UInt8(ascii: "}") { scanner.position += 1; return nil }
            repeat {
                var key: [UInt8] = []
                try scanner.string(into: &key)
                try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                if key == Array("version".utf8), try scanner.peek() == UInt8(ascii: "\"") {
                    var value: [UInt8] = []
                    try scanner.string(into: &value)
                    version = String(decoding: value, as: UTF8.self)
                } else {
                    try scanner.skipValue()
                }
            } while try scanner.separator(close: UInt8(ascii: "}"), context: "in 'signature'")
            return version
        }
        guard let found else { return }
        let major = String(found.split(separator: ".", maxSplits: 1).first ?? "")
        guard Self.supportedMajorVersions.contains(major) else {
            throw FeedError.unsupportedVersion(location, version: found,
                supported: Self.supportedMajorVersions.map { "\($0).x" }.joined(separator: ", "))
        }
    }

    private func readCount() throws(FeedError) {
        let location = scanner.location()
        var text: [UInt8] = []
        let isString: Bool = try scanner.unit { () throws(ScanError) -> Bool in
            text.removeAll()
            if try scanner.peek() == UInt8(ascii: "\"") {
                try scanner.string(into: &text)
                return true
            }
            try scanner.number(into: &text)
            return false
        }
        let string = String(decoding: text, as: UTF8.self)
        guard let value = Int(string), value >= 0 else {
            throw FeedError.shape(location, "'count' must be a non-negative integer, found \(isString ? "\"\(string)\"" : string)")
        }
        declaredCount = value
        countLocation = location
    }

    private func readFields(requested: [String]) throws(FeedError) {
        let location = scanner.location()
        let names: [String] = try scanner.unit { () throws(ScanError) -> [String] in
            var names: [String] = []
            try scanner.expect(UInt8(ascii: "["), "an array of field names for 'fields'")
            if try scanner.peek() == UInt8(ascii: "]") { scanner.position += 1; return [] }
            repeat {
                var name: [UInt8] = []
                try scanner.string(into: &name)
                names.append(String(decoding: name, as: UTF8.self))
            } while try scanner.separator(close: UInt8(ascii: "]"), context: "in 'fields'")
            return names
        }
        if let (_, repeated) = ColumnLayout.firstDuplicate(in: names) {
            throw FeedError.shape(location, "field '\(names[repeated])' appears twice in 'fields'")
        }
        layout = ColumnLayout(columns: names, requested: requested)
        unmappedFields = zip(names, layout?.slots ?? []).filter { $0.1 < 0 }.map { UnmappedField(name: $0.0, record: 0) }
    }

    /// A feed object must hold `fields` and `data`, unless it is the API's empty answer
    /// (`"count": 0`, nothing else required).
    private func checkShape() throws(FeedError) {
        if declaredCount == 0, rowsRead == 0 { return }
        var missing: [String] = []
        if layout == nil { missing.append("'fields'") }
        if !sawData { missing.append("'data'") }
        guard !missing.isEmpty else { return }
        let location = objectLocation ?? scanner.location()
        throw FeedError.shape(location, "the feed object has no \(missing.joined(separator: " and no ")) member: not a NASA/JPL API answer (an empty answer has \"count\": 0)")
    }

    private func checkCount() throws(FeedError) {
        if let declaredCount, declaredCount != rowsRead, let countLocation {
            throw FeedError.countMismatch(countLocation, declared: declaredCount, actual: rowsRead)
        }
    }
}
