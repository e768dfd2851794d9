import Synchronization

/// A field's values as a set (`repeated: set`): the JSON array `RawRecord` gathered, its elements
/// (JSON scalars, as the record wrote them) sorted by their bytes and each kept once, so that the
/// same values in any order give the same text, and a re-ordered list stores nothing new.
enum CanonicalSet {
    /// `array` (`["b","a","b"]`) in canonical order (`["a","b"]`), and whether a value repeated.
    static func canonical(_ array: UnsafeBufferPointer<UInt8>) -> (text: [UInt8], repeated: Bool) {
        var elements = Self.elements(of: array)
        elements.sort { $0.lexicographicallyPrecedes($1) }
        var text: [UInt8] = [UInt8(ascii: "[")]
        var repeated = false
        var previous: ArraySlice<UInt8>?
        for element in elements {
            if let previous, previous.elementsEqual(element) {
                repeated = true
                continue
            }
            if previous != nil { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: element)
            previous = element
        }
        text.append(UInt8(ascii: "]"))
        return (text, repeated)
    }

    /// The top-level elements of a JSON array of scalars: split at the commas outside strings.
    static func elements(of array: UnsafeBufferPointer<UInt8>) -> [ArraySlice<UInt8>] {
        let bytes = Array(array)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return bytes.isEmpty ? [] : [bytes[...]] }
        var elements: [ArraySlice<UInt8>] = []
        var start = 1
        var inString = false
        var index = 1
        while index < bytes.count - 1 {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ",") {
                elements.append(bytes[start..<index])
                start = index + 1
            }
            index += 1
        }
        if start < bytes.count - 1 { elements.append(bytes[start..<(bytes.count - 1)]) }
        return elements
    }
}

/// How many records of a feed held a value more than once in a set, for the feed's warnings.
final class SetRepeats: Sendable {
    let count = Atomic<Int>(0)
}
