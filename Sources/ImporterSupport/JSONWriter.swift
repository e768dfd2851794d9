/// Writes JSON text piece by piece into an `OutputSink`, so reports of any size never sit in memory.
///
/// The caller drives the structure; this type handles commas, escaping and number formatting
/// (doubles in their shortest round-trip form, integral ones without a fraction). Written by hand
/// because reports of a million changes are a hot path (Foundation's encoders hold the whole
/// document in memory).
public struct JSONWriter {
    public let output: OutputSink
    private var needsComma: [Bool] = []

    public init(output: OutputSink) {
        self.output = output
    }

    /// Writes one JSON value with `body`, then a line feed: a whole JSON output, or one NDJSON line.
    public static func document(to output: OutputSink, _ body: (inout JSONWriter) throws -> Void) rethrows {
        var writer = JSONWriter(output: output)
        try body(&writer)
        output.write("\n")
    }

    public mutating func beginObject() { value("{"); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); output.write("}") }
    public mutating func beginArray() { value("["); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); output.write("]") }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: String) {
        separator()
        Self.writeQuoted(name, to: output)
        output.writeByte(UInt8(ascii: ":"))
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    public mutating func string(_ text: String) {
        separator()
        Self.writeQuoted(text, to: output)
        markValue()
    }

    public mutating func int(_ number: Int64) { value(String(number)) }
    public mutating func int(_ number: Int) { value(String(number)) }
    public mutating func bool(_ flag: Bool) { value(flag ? "true" : "false") }
    public mutating func null() { value("null") }

    public mutating func field(_ name: String, _ text: String) { key(name); string(text) }
    public mutating func field(_ name: String, _ number: Int) { key(name); int(number) }
    public mutating func field(_ name: String, _ number: Int64) { key(name); int(number) }
    public mutating func field(_ name: String, _ flag: Bool) { key(name); bool(flag) }

    /// `"name": ["a", "b"]`.
    public mutating func field(_ name: String, strings: [String]) {
        key(name)
        beginArray()
        for item in strings { string(item) }
        endArray()
    }

    /// Writes a raw JSON token (already valid JSON) as a value.
    public mutating func value(_ raw: String) {
        separator()
        output.write(raw)
        markValue()
    }

    /// Writes raw JSON bytes (one valid JSON value) as a value.
    public mutating func value(bytes: UnsafeBufferPointer<UInt8>) {
        separator()
        output.writeBytes(bytes)
        markValue()
    }

    @inline(__always)
    private mutating func markValue() {
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = true }
    }

    @inline(__always)
    private mutating func separator() {
        if let last = needsComma.last, last { output.writeByte(UInt8(ascii: ",")) }
    }

    /// Writes `text` as a JSON string: quotes, backslashes and control characters escaped,
    /// everything else (UTF-8) as is.
    static func writeQuoted(_ text: String, to output: OutputSink) {
        var text = text
        text.withUTF8 { bytes in
            output.writeByte(UInt8(ascii: "\""))
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                switch byte {
                case UInt8(ascii: "\""): output.write("\\\"")
                case UInt8(ascii: "\\"): output.write("\\\\")
                case 0x0A: output.write("\\n")
                case 0x0D: output.write("\\r")
                case 0x09: output.write("\\t")
                default:
                    let hex = String(byte, radix: 16)
                    output.write("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                }
                runStart = index + 1
            }
            output.writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart...]))
            output.writeByte(UInt8(ascii: "\""))
        }
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        let sink = OutputSink.memory()
        writeQuoted(text, to: sink)
        return sink.text
    }
}
