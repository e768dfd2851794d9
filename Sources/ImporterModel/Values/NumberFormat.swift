/// How a number written for people is read (`format: {thousands: ",", decimal: "."}` on a number
/// attribute's field): a mapping option, never a locale guess. Thousands separators must group
/// digits by three (`1,234,567`), so that `1.5` read with `thousands: "."` is refused, not read as 15.
public struct NumberFormat: Sendable, Hashable {
    /// The byte between groups of three digits, or nil when there is none.
    public var thousands: UInt8?
    /// The byte before the fraction: `.` or `,`.
    public var decimal: UInt8

    public init(thousands: UInt8?, decimal: UInt8) {
        self.thousands = thousands
        self.decimal = decimal
    }

    /// An example of the format, for messages.
    public var example: String {
        let t = thousands.map { String(UnicodeScalar($0)) } ?? ""
        return "1\(t)234\(String(UnicodeScalar(decimal)))5"
    }

    /// `text` rewritten as plain decimal (`-1234.5`) into `output` (emptied first); false when it is
    /// not a number in this format.
    public func normalize(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        output.removeAll(keepingCapacity: true)
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            output.append(text[index])
            index += 1
        }
        // The integer part: groups of digits between separators.
        var group = 0
        var groups = 0
        var digits = 0
        while index < text.count {
            let byte = text[index]
            if byte &- 0x30 < 10 {
                output.append(byte)
                group += 1
                digits += 1
            } else if let thousands, byte == thousands {
                // The first group has 1 to 3 digits, every later one 3.
                guard group >= 1, group <= 3, groups == 0 || group == 3 else { return false }
                groups += 1
                group = 0
            } else {
                break
            }
            index += 1
        }
        guard digits > 0, groups == 0 || group == 3 else { return false }
        if index < text.count {
            guard text[index] == decimal else { return false }
            output.append(UInt8(ascii: "."))
            index += 1
            let fractionStart = index
            while index < text.count, text[index] &- 0x30 < 10 {
                output.append(text[index])
                index += 1
            }
            guard index > fractionStart else { return false }
        }
        return index == text.count
    }
}
