import Foundation
import ImporterModel
import ImporterSupport

/// `importer views show`: a view's rows, one per group, as a padded table, JSON objects or CSV.
public struct ViewRowsReport {
    /// A table for people, a JSON array of objects, or CSV.
    public enum Format: String, CaseIterable, Sendable {
        case text, json, csv
    }

    public var columns: [String]
    public var rows: [[Value]]

    public init(columns: [String], rows: [[Value]]) {
        self.columns = columns
        self.rows = rows
    }

    public func render(as format: Format, to output: OutputSink) {
        switch format {
        case .text:
            // Sums carry the rounding of floating-point addition: 12 significant digits for people.
            let cells = rows.map { $0.map { value in
                if case .real(let x) = value { return String(format: "%.12g", x) }
                return value.description
            } }
            output.write(TextTable.render(columns: columns, rows: cells))
        case .json:
            JSONWriter.document(to: output) { json in
                json.beginArray()
                for row in rows {
                    json.beginObject()
                    for (column, value) in zip(columns, row) { json.field(column, value) }
                    json.endObject()
                }
                json.endArray()
            }
        case .csv:
            output.write(TableCSV.header(columns))
            for row in rows { output.write(TableCSV.row(row)) }
        }
    }
}
