/// A plain-text table: a title, a header row, rows of cells, and notes under it. The first column
/// is left-aligned, the others (figures) right-aligned; widths fit the contents.
struct BenchTable {
    var title: String
    var headers: [String]
    private(set) var rows: [[String]] = []
    var notes: [String] = []

    init(title: String, headers: [String]) {
        self.title = title
        self.headers = headers
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))
        return ([title, rule, line(headers), rule] + rows.map(line) + [rule] + notes).joined(separator: "\n")
    }
}

extension Double {
    /// The value with `digits` decimals.
    func formatted(_ digits: Int) -> String {
        String(format: "%.\(digits)f", self)
    }
}

/// MiB from KiB, one decimal.
func mebibytes(kiB: Int) -> String {
    (Double(kiB) / 1024).formatted(1)
}
