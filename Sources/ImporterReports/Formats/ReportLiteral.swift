import Foundation
import ImporterModel
import ImporterSupport

/// Values and keys as short, unambiguous text, shared by the Markdown and CSV reports (and shown in
/// the HTML report): `null`, numbers in their shortest round-trip form, text as is unless it could
/// be read back as something else, then as a JSON string literal.
///
/// Text is written bare when it is not empty, has no leading or trailing white space, no control
/// characters, no `;`, no `→` and no `"`, and does not read as `null`, `true`, `false` or a number;
/// otherwise it is quoted (`"2024"`, `"null"`, `""`, `"a; b"`). So a reader can split a list of
/// `name=value` pairs on `;` and `attribute: old → new` on ` → `, and tell `null` from `"null"`.
enum ReportLiteral {
    static func value(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .integer(let n): String(n)
        case .real(let d): d.formattedForReport
        case .text(let text): isBare(text) ? text : JSONWriter.quoted(text)
        }
    }

    static func isBare(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        if first.properties.isWhitespace || last.properties.isWhitespace { return false }
        for scalar in text.unicodeScalars {
            switch scalar {
            case ";", "→", "\"": return false
            default: if scalar.value < 0x20 || scalar.value == 0x7F { return false }
            }
        }
        if text == "null" || text == "true" || text == "false" { return false }
        return Int64(text) == nil && Double(text) == nil
    }

    /// `name=value` pairs joined with `separator` (`date=2024-07-21 08:12:05`).
    static func pairs(_ pairs: [(String, Value)], separator: String) -> String {
        pairs.map { "\($0.0)=\(value($0.1))" }.joined(separator: separator)
    }
}
