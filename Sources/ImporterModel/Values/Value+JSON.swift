import ImporterSupport

extension JSONWriter {
    /// A value: null, an integer, a real (null when not finite) or a string.
    public mutating func value(_ v: Value) {
        switch v {
        case .null: null()
        case .integer(let n): int(n)
        case .real(let d): value(d.isFinite ? d.formattedForReport : "null")
        case .text(let s): string(s)
        }
    }

    public mutating func field(_ name: String, _ v: Value) { key(name); value(v) }
}
