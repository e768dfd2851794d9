import ImporterModel

/// Tables as CSV (RFC 4180, CRLF line ends), the one CSV form of every tabular output (`export`,
/// `views show`, `query`): a header of names, then rows with text quoted (inner quotes doubled),
/// numbers bare in their shortest round-trip form, and null as an empty field.
public enum TableCSV {
    public static func header(_ names: [String]) -> String {
        names.map(CSVReportRenderer.quoted).joined(separator: ",") + "\r\n"
    }

    public static func row(_ values: [Value]) -> String {
        values.map(field).joined(separator: ",") + "\r\n"
    }

    public static func field(_ value: Value) -> String {
        switch value {
        case .null: ""
        case .integer(let n): String(n)
        case .real(let x): x.isFinite ? x.formattedForReport : ""
        case .text(let text): CSVReportRenderer.quoted(text)
        }
    }
}
