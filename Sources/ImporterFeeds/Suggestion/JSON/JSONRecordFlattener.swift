/// Turns one JSON record into its leaf fields, addressed as a mapping addresses them: a top-level
/// key plainly (`mag`), anything deeper as an RFC 6901 pointer (`/properties/mag`).
///
/// An array of scalars is one field (its elements are the values) and, when it is short, also one
/// field per index (`/geometry/coordinates/0`): the suggestion keeps the index fields when every
/// record's array has the same length, the whole array otherwise. Arrays holding objects or arrays
/// are not mapped; their pointers are reported.
enum JSONRecordFlattener {
    /// Arrays up to this length also yield one field per index.
    static let maximumIndexedLength = 8

    static func fields(of members: [(String, JSONSampleValue)], skipped: inout Set<String>) -> [SampledField] {
        var fields: [SampledField] = []
        for (key, value) in members {
            walk(value, tokens: [key], words: [key], into: &fields, skipped: &skipped)
        }
        return fields
    }

    /// The mapping's address of the value at `tokens`.
    static func address(_ tokens: [String]) -> String {
        if tokens.count == 1, let key = tokens.first, !key.isEmpty, !key.hasPrefix("/") { return key }
        return pointer(tokens)
    }

    /// An RFC 6901 pointer: `~` → `~0`, `/` → `~1`.
    static func pointer(_ tokens: [String]) -> String {
        tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }

    private static func walk(_ value: JSONSampleValue, tokens: [String], words: [String],
                             into fields: inout [SampledField], skipped: inout Set<String>) {
        switch value {
        case .scalar(let scalar):
            fields.append(SampledField(address: address(tokens), words: words, values: [scalar]))
        case .object(let members):
            for (key, member) in members {
                walk(member, tokens: tokens + [key], words: words + [key], into: &fields, skipped: &skipped)
            }
        case .array(let elements):
            var scalars: [SampleScalar] = []
            for element in elements {
                guard case .scalar(let scalar) = element else {
                    skipped.insert(pointer(tokens))
                    return
                }
                scalars.append(scalar)
            }
            let arrayAddress = address(tokens)
            fields.append(SampledField(address: arrayAddress, words: words, values: scalars, isArray: true))
            for (index, scalar) in scalars.prefix(maximumIndexedLength).enumerated() {
                fields.append(SampledField(address: pointer(tokens + [String(index)]), words: words + [String(index)], shortWords: 2,
                                           values: [scalar], arrayAddress: arrayAddress))
            }
        }
    }
}
