/// Writes JSON text piece by piece into a stream, so reports of any size never sit in memory.
///
/// The caller drives the structure; this type handles commas, escaping and number formatting
/// (shortest round-trip decimals; integral doubles keep a `.0`-free form only for integers).
public struct JSONWriter<Output: TextOutputStream> {
    public var output: Output
    private var needsComma: [Bool] = []

    public init(output: Output) {
        self.output = output
    }

    public mutating func beginObject() { value("{"); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); output.write("}") }
    public mutating func beginArray() { value("["); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); output.write("]") }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: String) {
        separator()
        output.write(Self.quoted(name))
        output.write(":")
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    public mutating func string(_ text: String) { value(Self.quoted(text)) }
    public mutating func int(_ number: Int64) { value(String(number)) }
    public mutating func int(_ number: Int) { value(String(number)) }
    public mutating func bool(_ flag: Bool) { value(flag ? "true" : "false") }
    public mutating func null() { value("null") }

    public mutating func value(_ v: Value) {
        switch v {
        case .null: null()
        case .integer(let n): int(n)
        case .real(let d): value(d.isFinite ? d.formattedForReport : "null")
        case .text(let s): string(s)
        }
    }

    public mutating func field(_ name: String, _ v: Value) { key(name); value(v) }
    public mutating func field(_ name: String, _ text: String) { key(name); string(text) }
    public mutating func field(_ name: String, _ number: Int) { key(name); int(number) }
    public mutating func field(_ name: String, _ number: Int64) { key(name); int(number) }

    /// Writes a raw JSON token (already valid JSON) as a value.
    public mutating func value(_ raw: String) {
        separator()
        output.write(raw)
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = true }
    }

    private mutating func separator() {
        if let last = needsComma.last, last { output.write(",") }
    }

    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
