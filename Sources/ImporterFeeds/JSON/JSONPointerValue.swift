import ImporterModel

/// Reads the one scalar a JSON pointer (RFC 6901) names in a document, streaming: what a paged
/// API puts in each page for the next one (`/links/next`, `/meta/next_cursor`). Members and
/// elements before it are skipped one at a time, so a page's records never need to fit in memory
/// at once; nothing after it is read.
public enum JSONPointerValue {
    /// The scalar's text (a string's content, a number as written, `true` or `false`); nil when
    /// the pointer names nothing or null. An object or array there is a shape error, bad JSON a
    /// syntax error, each located in `source`.
    public static func scalar(at pointer: String, in source: ByteSource) throws(FeedError) -> String? {
        let scanner = JSONScanner(source: source)
        let tokens = pointer.isEmpty || pointer == "/" ? [] : JSONRecordsReader.referenceTokens(pointer)
        return try descend(scanner, through: tokens[...], pointer: pointer)
    }

    private static func descend(_ scanner: JSONScanner, through tokens: ArraySlice<String>, pointer: String) throws(FeedError) -> String? {
        guard let token = tokens.first else { return try scalar(scanner, pointer: pointer) }
        let open = try scanner.unit { () throws(ScanError) -> UInt8 in
            let byte = try scanner.peek()
            guard byte != 0 else { throw scanner.syntaxError(expected: "a JSON value") }
            return byte
        }
        let isObject = open == UInt8(ascii: "{")
        guard isObject || (open == UInt8(ascii: "[") && Int(token) != nil) else { return nil }
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
            guard case .some(let name?) = member else { return nil }
            if name == token { return try descend(scanner, through: tokens.dropFirst(), pointer: pointer) }
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

    private static func scalar(_ scanner: JSONScanner, pointer: String) throws(FeedError) -> String? {
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
        case .null: return nil
        case .boolTrue: return "true"
        case .boolFalse: return "false"
        default: return String(decoding: bytes, as: UTF8.self)
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
