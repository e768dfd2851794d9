import Foundation
import ImporterModel
import ImporterSupport

/// `importer query`: a query's rows printed as they come (a table at the end, its columns padded);
/// `begin` once with the columns, `row` per row, `end` once.
public struct QueryRowsReport {
    /// How rows are printed.
    public enum Format: String, CaseIterable, Sendable {
        case table, json, ndjson, csv
    }

    /// nil: the first value alone (`--raw`).
    public let format: Format?
    let output: OutputSink
    private var columns: [String] = []
    private var tableRows: [[String]] = []
    private var count = 0

    public init(format: Format?, output: OutputSink) {
        self.format = format
        self.output = output
    }

    public mutating func begin(_ columns: [String]) {
        self.columns = columns
        if format == .csv { output.write(TableCSV.header(columns)) }
        if format == .json { output.write("[") }
    }

    public mutating func row(_ values: [Value]) throws {
        defer { count += 1 }
        switch format {
        case nil:
            if count == 0, let first = values.first { output.write((first == .null ? "" : first.description) + "\n") }
        case .table:
            tableRows.append(values.map { value in
                if case .real(let x) = value { return String(format: "%.12g", x) }
                return value == .null ? "null" : value.description
            })
        case .csv:
            output.write(TableCSV.row(values))
        case .json, .ndjson:
            if format == .json { output.write(count == 0 ? "\n" : ",\n") }
            var json = JSONWriter(output: output)
            json.beginObject()
            for (column, value) in zip(columns, values) { json.field(column, value) }
            json.endObject()
            if format == .ndjson { output.write("\n") }
        }
    }

    public func end() {
        switch format {
        case .table: output.write(TextTable.render(columns: columns, rows: tableRows))
        case .json: output.write(count == 0 ? "]\n" : "\n]\n")
        default: break
        }
    }
}
