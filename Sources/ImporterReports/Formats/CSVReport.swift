import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// The CSV report (RFC 4180: CRLF line ends, `"` doubled inside quoted fields): a header
/// `token,transaction,entity,key,type,attribute,old,new`, then one row per changed attribute.
///
/// - updates: one row per changed attribute, with its old and new values;
/// - inserts: one row per non-null value, `old` empty;
/// - deletes: one row per tombstone attribute, `new` empty.
///
/// Text fields are always quoted, so `""` is an empty string; NULL is the bare word `null` and
/// numbers are bare, in their shortest round-trip form. An empty unquoted field means "no value"
/// (an insert's `old`, a delete's `new`). `key` is the record's key as `name=value` pairs joined
/// with `;` (values as `ReportLiteral` writes them). A change with nothing to list (an empty
/// tombstone) still gets one row, with `attribute`, `old` and `new` empty.
///
/// Streams: each change is written as it is read.
public struct CSVReportRenderer {
    /// What the changes are read from (the caller's transaction).
    public var snapshot: StoreSnapshot

    public static let header = "token,transaction,entity,key,type,attribute,old,new"

    public init(snapshot: StoreSnapshot) {
        self.snapshot = snapshot
    }

    public func render(_ content: ReportContent, to output: OutputSink) throws {
        output.write(Self.header + "\r\n")
        try content.forEachChange(in: snapshot) { change, transaction in
            var prefix = Self.quoted(transaction.token)
            prefix += ","
            prefix += String(transaction.number)
            prefix += ","
            prefix += Self.quoted(change.entity)
            prefix += ","
            prefix += Self.quoted(ReportLiteral.pairs(change.key, separator: ";"))
            prefix += ","
            prefix += Self.quoted(change.type.rawValue)
            prefix += ","
            var rows = 0
            func row(_ attribute: String, _ old: String, _ new: String) {
                output.write(prefix)
                output.write(Self.quoted(attribute))
                output.write(",")
                output.write(old)
                output.write(",")
                output.write(new)
                output.write("\r\n")
                rows += 1
            }
            switch change.type {
            case .update:
                for attributeChange in change.changed {
                    row(attributeChange.attribute, Self.field(attributeChange.old), Self.field(attributeChange.new))
                }
            case .insert:
                for (name, value) in change.listedValues() { row(name, "", Self.field(value)) }
            case .delete:
                for (name, value) in change.listedValues() { row(name, Self.field(value), "") }
            }
            if rows == 0 { output.write(prefix + ",,\r\n") }
        }
    }

    /// A value as a CSV field: `null`, a bare number, or quoted text.
    static func field(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .integer(let n): String(n)
        case .real(let d): d.formattedForReport
        case .text(let text): quoted(text)
        }
    }

    /// `text` between double quotes, inner quotes doubled.
    static func quoted(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + text + "\"" }
        var result = "\""
        for character in text.unicodeScalars {
            if character == "\"" { result += "\"\"" } else { result.unicodeScalars.append(character) }
        }
        return result + "\""
    }
}
