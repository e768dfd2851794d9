import ImporterModel

/// Reads the one scalar a JSON pointer (RFC 6901) names in a document, streaming: what a paged
/// API puts in each page for the next one (`/links/next`, `/meta/next_cursor`). Members and
/// elements before it are skipped one at a time, so a page's records never need to fit in memory
/// at once; nothing after it is read.
public enum JSONPointerValue {
    /// What a pointer names in a document.
    public enum Found: Equatable, Sendable {
        /// A scalar's text: a string's content, a number as written, `true` or `false`.
        case value(String)
        /// JSON `null`.
        case null
        /// Nothing: `missing` is the shortest prefix of the pointer that names nothing (the
        /// pointer itself when only its last member is absent; `/meta` for `/meta/next` in a
        /// document without `meta`, or whose `meta` is not an object).
        case absent(missing: String)

        /// The scalar's text; nil when null or absent.
        public var text: String? {
            if case .value(let text) = self { text } else { nil }
        }
    }

    /// What `pointer` names in `source`. An object or array there is a shape error, bad JSON a
    /// syntax error, each located in `source`.
    public static func find(_ pointer: String, in source: ByteSource) throws(FeedError) -> Found {
        let scanner = JSONScanner(source: source)
        let tokens = pointer.isEmpty || pointer == "/" ? [] : JSONRecordsReader.referenceTokens(pointer)
        return try descend(scanner, through: tokens[...], pointer: pointer, depth: 0)
    }

    /// The pointer's first `count` reference tokens, as a pointer (escaped as written).
    private static func prefix(of pointer: String, tokens count: Int) -> String {
        pointer.split(separator: "/", omittingEmptySubsequences: false).prefix(count + 1).joined(separator: "/")
    }

    private static func descend(_ scanner: JSONScanner, through tokens: ArraySlice<String>, pointer: String, depth: Int) throws(FeedError) -> Found {
        guard let token = tokens.first else { return try scalar(scanner, pointer: pointer) }
        let absent = Found.absent(missing: prefix(of: pointer, tokens: depth + 1))
        let open = try scanner.unit { () throws(ScanError) -> UInt8 in
            let byte = try scanner.peek()
            guard byte != 0 else { throw scanner.syntaxError(expected: "a JSON value") }
            return byte
        }
        let isObject = open == UInt8(ascii: "{")
        guard isObject || (open == UInt8(ascii: "[") && Int(token) != nil) else { return absent }
        try scanner.unit { () throws(ScanError) in scanner.position += 1 }
        var index = 0
        while true {
            let member = try scanner.unit { () throws(ScanError) -> String?? in
                if try scanner.peek() == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return .some(nil) }
                if index > 0 { try scanner.expect(UInt8(ascii: ","), isObject ? "',' or '}' in an object" : "',' or ']' in an array") }
                guard isObject else { return .some(String(index)) }
                var name: [UInt8] = []
                try scanner.string(into: &name)
                try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                return .some(String(decoding: name, as: UTF8.self))
            }
            guard case .some(let name?) = member else { return absent }
            if name == token { return try descend(scanner, through: tokens.dropFirst(), pointer: pointer, depth: depth + 1) }
            try skip(scanner, depth: 0)
            index += 1
        }
    }

    /// Skips one value, entering arrays and objects so that each member is its own unit.
    private static func skip(_ scanner: JSONScanner, depth: Int) throws(FeedError) {
        let open = try scanner.unit { () throws(ScanError) -> UInt8 in try scanner.peek() }
        guard open == UInt8(ascii: "{") || open == UInt8(ascii: "["), depth < 512 else {
            return try scanner.unit { () throws(ScanError) in try scanner.skipValue() }
        }
        let isObject = open == UInt8(ascii: "{")
        try scanner.unit { () throws(ScanError) in scanner.position += 1 }
        var first = true
        while true {
            let closed = try scanner.unit { () throws(ScanError) -> Bool in
                if try scanner.peek() == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    scanner.position += 1
                    return true
                }
                if !first { try scanner.expect(UInt8(ascii: ","), isObject ? "',' or '}' in an object" : "',' or ']' in an array") }
                if isObject {
                    var name: [UInt8] = []
                    try scanner.string(into: &name)
                    try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                }
                return false
            }
            if closed { return }
            first = false
            try skip(scanner, depth: depth + 1)
        }
    }

    private static func scalar(_ scanner: JSONScanner, pointer: String) throws(FeedError) -> Found {
        let location = scanner.location()
        let read = try scanner.unit { () throws(ScanError) -> (RawKind, [UInt8])? in
            var bytes: [UInt8] = []
            switch try scanner.peek() {
            case UInt8(ascii: "\""):
                try scanner.string(into: &bytes)
                return (.string, bytes)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                return (try scanner.literal(), [])
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                return nil
            case 0:
                throw scanner.syntaxError(expected: "a JSON value")
            default:
                try scanner.number(into: &bytes)
                return (.number, bytes)
            }
        }
        guard let (kind, bytes) = read else {
            throw FeedError.shape(location, "\(pointer) is an object or array, not a value")
        }
        switch kind {
        case .null: return .null
        case .boolTrue: return .value("true")
        case .boolFalse: return .value("false")
        default: return .value(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension FeedReaders {
    /// How many records the feed at `source` holds for `mapping` (its format, records path and
    /// namespaces), read through to its end (so a malformed feed is an error here too).
    public static func countRecords(for mapping: FeedMapping, source: ByteSource) throws(FeedError) -> Int {
        let reader = try make(for: mapping, source: source)
        _ = try reader.open(requesting: [])
        var record = RawRecord(slotCount: 0)
        var count = 0
        while try reader.next(into: &record) { count += 1 }
        return count
    }
}
