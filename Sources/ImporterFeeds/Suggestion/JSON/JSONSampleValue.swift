/// A JSON value as the sampler keeps it: a small tree, built for one record at a time.
indirect enum JSONSampleValue: Sendable, Equatable {
    case scalar(SampleScalar)
    case array([JSONSampleValue])
    /// Members in document order (a repeated key keeps its last value, as the reader does).
    case object([(String, JSONSampleValue)])

    static func == (lhs: JSONSampleValue, rhs: JSONSampleValue) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a), .scalar(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }
}

extension JSONScanner {
    /// Reads any value at the read position into a tree. Call inside `unit` (it may need more input).
    func sampleValue(depth: Int = 0) throws(ScanError) -> JSONSampleValue {
        guard depth < 64 else { throw syntaxError(expected: "nesting shallower than 64 levels") }
        switch try peek() {
        case UInt8(ascii: "\""):
            var bytes: [UInt8] = []
            try string(into: &bytes)
            return .scalar(.string(String(decoding: bytes, as: UTF8.self)))
        case UInt8(ascii: "{"):
            position += 1
            var members: [(String, JSONSampleValue)] = []
            if try peek() == UInt8(ascii: "}") { position += 1; return .object(members) }
            repeat {
                var key: [UInt8] = []
                try string(into: &key)
                try expect(UInt8(ascii: ":"), "':' after an object key")
                let name = String(decoding: key, as: UTF8.self)
                let value = try sampleValue(depth: depth + 1)
                if let index = members.firstIndex(where: { $0.0 == name }) { members.remove(at: index) }
                members.append((name, value))
            } while try separator(close: UInt8(ascii: "}"), context: "in an object")
            return .object(members)
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONSampleValue] = []
            if try peek() == UInt8(ascii: "]") { position += 1; return .array(elements) }
            repeat {
                elements.append(try sampleValue(depth: depth + 1))
            } while try separator(close: UInt8(ascii: "]"), context: "in an array")
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            switch try literal() {
            case .boolTrue: return .scalar(.bool(true))
            case .boolFalse: return .scalar(.bool(false))
            default: return .scalar(.null)
            }
        case 0:
            throw syntaxError(expected: "a value")
        default:
            var bytes: [UInt8] = []
            try number(into: &bytes)
            return .scalar(.number(String(decoding: bytes, as: UTF8.self)))
        }
    }
}
