import ImporterModel
import NIOCore

/// COPY's text format: one line per row, columns separated by tabs, `\N` for NULL, backslash,
/// tab, newline and carriage return escaped. Reals are written in Swift's shortest round-trip form
/// (PostgreSQL reads `inf`, `-inf` and `nan` too), so a value reads back exactly.
struct CopyText {
    private(set) var buffer = ByteBuffer()

    mutating func appendRow(_ values: [Value]) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            switch value {
            case .null: buffer.writeStaticString("\\N")
            case .integer(let integer): buffer.writeString(String(integer))
            case .real(let real): buffer.writeString(real.description)
            case .text(let text): appendEscaped(text)
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }
}
