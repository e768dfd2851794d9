import Foundation
import ImporterModel

/// A field's text transforms, compiled once per mapping: `capture` (a regular expression's first
/// group, or its whole match), then `split`/`part`, then `lookup` (see `FieldMapping`).
struct TextTransform: Sendable {
    private let regex: NSRegularExpression?
    private let capture: String?
    private let split: String?
    private let part: Int
    private let lookup: [String: Value]?

    enum Outcome {
        case text([UInt8])
        case null
        case reject(String)
    }

    init(_ field: FieldMapping) throws(ModelError) {
        capture = field.capture
        if let pattern = field.capture {
            do {
                regex = try NSRegularExpression(pattern: pattern)
            } catch {
                throw ModelError.invalid("attribute '\(field.attribute)': capture '\(pattern)' is not a regular expression")
            }
        } else {
            regex = nil
        }
        split = field.split
        part = field.part ?? 0
        lookup = field.lookup
    }

    func apply(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        var text = String(decoding: bytes, as: UTF8.self)
        if let regex, let capture {
            let range = NSRange(text.startIndex..., in: text)
            guard let match = regex.firstMatch(in: text, range: range) else {
                return .reject("'\(text)' does not match capture '\(capture)'")
            }
            let group = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
            guard group.location != NSNotFound, let found = Range(group, in: text) else {
                return .reject("capture '\(capture)' matched '\(text)' but its group took no text")
            }
            text = String(text[found])
        }
        if let split {
            let pieces = text.components(separatedBy: split)
            let index = part < 0 ? pieces.count + part : part
            guard pieces.indices.contains(index) else {
                return .reject("'\(text)' split at '\(split)' has \(pieces.count) part(s), no part \(part)")
            }
            text = pieces[index]
        }
        if let lookup {
            guard let value = lookup[text] else {
                let known = lookup.keys.sorted().prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                return .reject("'\(text)' is not in the lookup table (\(known)\(lookup.count > 8 ? ", …" : ""))")
            }
            switch value {
            case .null: return .null
            case .integer(let number): return .text(Array(String(number).utf8))
            case .real(let number): return .text(Array(String(number).utf8))
            case .text(let replacement): return .text(Array(replacement.utf8))
            }
        }
        return .text(Array(text.utf8))
    }
}
