/// What a UTF-8 lead byte allows after it (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF), shared by the scanners that validate UTF-8 as they go.
struct UTF8Lead {
    /// How many continuation bytes follow the lead byte.
    var continuations: Int
    /// The range of the first continuation byte (the others are 0x80...0xBF).
    var low: UInt8
    var high: UInt8

    /// Nil when `byte` cannot start a multi-byte sequence.
    @inline(__always)
    init?(_ byte: UInt8) {
        low = 0x80
        high = 0xBF
        switch byte {
        case 0xC2...0xDF: continuations = 1
        case 0xE0: continuations = 2; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
        case 0xED: continuations = 2; high = 0x9F
        case 0xF0: continuations = 3; low = 0x90
        case 0xF1...0xF3: continuations = 3
        case 0xF4: continuations = 3; high = 0x8F
        default: return nil
        }
    }

    /// `0x0A`, `0xFF`: a byte as feed errors name it.
    static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return "0x" + (text.count == 1 ? "0" + text : text)
    }
}
