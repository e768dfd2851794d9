/// Columns padded to their widest cell, under a rule of dashes.
enum TextTable {
    static func render(columns: [String], rows: [[String]]) -> String {
        var widths = columns.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ") + "\n"
        }
        return line(columns) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }
}
