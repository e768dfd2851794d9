import ImporterModel

/// Decodes a feed's bytes from a `TextEncoding` to UTF-8 as they are read, chunk by chunk (a
/// UTF-16 code unit or surrogate pair split between chunks is carried over). A byte the encoding
/// does not define is a located error, never a replacement character: Windows-1252's five
/// undefined bytes, Latin-1's C1 controls (0x80–0x9F: in a real file, the sign of a Windows-1252
/// export), an unpaired UTF-16 surrogate, a UTF-16 file without its byte order mark.
struct SourceDecoder {
    let encoding: TextEncoding
    let sourceName: String
    private var line = 1
    private var column = 1
    /// UTF-16: nil until the byte order mark is read, then whether little-endian.
    private var littleEndian: Bool?
    /// Bytes of an incomplete UTF-16 code unit or surrogate pair carried to the next chunk.
    private var carried: [UInt8] = []

    init(encoding: TextEncoding, sourceName: String) {
        self.encoding = encoding
        self.sourceName = sourceName
    }

    /// Appends the UTF-8 of `bytes` to `output`.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(FeedError) {
        switch encoding {
        case .utf8:
            output.append(contentsOf: bytes)
        case .latin1, .windows1252:
            for byte in bytes { try appendSingleByte(byte, into: &output) }
        case .utf16:
            carried.append(contentsOf: bytes)
            try decodeUTF16(into: &output)
        }
    }

    /// At the end of the input: what is left over is an error.
    func finish() throws(FeedError) {
        guard encoding == .utf16 else { return }
        if !carried.isEmpty {
            throw .syntax(location, expected: "a whole UTF-16 character", found: "the end of the input after \(carried.count) byte\(carried.count == 1 ? "" : "s") of one")
        }
    }

    private var location: SourceLocation { SourceLocation(source: sourceName, line: line, column: column) }

    private mutating func appendSingleByte(_ byte: UInt8, into output: inout [UInt8]) throws(FeedError) {
        let scalar: UInt32
        if byte < 0x80 {
            scalar = UInt32(byte)
        } else if byte >= 0xA0 {
            scalar = UInt32(byte)
        } else if encoding == .windows1252 {
            let mapped = Self.windows1252[Int(byte - 0x80)]
            guard mapped != 0 else {
                throw .syntax(location, expected: "a Windows-1252 character", found: "byte 0x\(String(byte, radix: 16, uppercase: true)), which Windows-1252 does not define")
            }
            scalar = UInt32(mapped)
        } else {
            throw .syntax(location, expected: "a Latin-1 character",
                          found: "byte 0x\(String(byte, radix: 16, uppercase: true)), a control character in Latin-1 (is the file Windows-1252? say encoding: windows-1252)")
        }
        append(scalar, into: &output)
    }

    private mutating func decodeUTF16(into output: inout [UInt8]) throws(FeedError) {
        var index = 0
        if littleEndian == nil {
            guard carried.count >= 2 else { return }
            switch (carried[0], carried[1]) {
            case (0xFF, 0xFE): littleEndian = true
            case (0xFE, 0xFF): littleEndian = false
            default: throw .syntax(location, expected: "a UTF-16 byte order mark (FF FE or FE FF) at the start", found: "bytes \(Self.hex(carried[0])) \(Self.hex(carried[1]))")
            }
            index = 2
        }
        let little = littleEndian ?? true
        func unit(_ at: Int) -> UInt32 {
            little ? UInt32(carried[at]) | UInt32(carried[at + 1]) << 8 : UInt32(carried[at]) << 8 | UInt32(carried[at + 1])
        }
        while index + 1 < carried.count {
            let first = unit(index)
            if first >= 0xD800 && first <= 0xDBFF {
                guard index + 3 < carried.count else { break }
                let second = unit(index + 2)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw .syntax(location, expected: "a low surrogate after a high one", found: "U+\(String(second, radix: 16, uppercase: true))")
                }
                append(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), into: &output)
                index += 4
            } else if first >= 0xDC00 && first <= 0xDFFF {
                throw .syntax(location, expected: "a UTF-16 character", found: "an unpaired low surrogate U+\(String(first, radix: 16, uppercase: true))")
            } else {
                append(first, into: &output)
                index += 2
            }
        }
        carried.removeFirst(index)
    }

    /// Appends `scalar` as UTF-8, counting lines and columns (in characters) for locations.
    private mutating func append(_ scalar: UInt32, into output: inout [UInt8]) {
        if scalar == 0x0A {
            line += 1
            column = 1
        } else {
            column += 1
        }
        switch scalar {
        case ..<0x80:
            output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private static func hex(_ byte: UInt8) -> String { (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }

    /// Windows-1252's 0x80–0x9F (0: undefined).
    private static let windows1252: [UInt16] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}
