import ImporterModel

/// Where a CSV export's table is in its first bytes, as `model suggest` guesses it: the delimiter
/// its rows share, the preamble before its header (a title, an export date), `#` comment lines,
/// and a second table after a blank line.
///
/// The table is the rows with the field count most rows have (at least two fields), for the
/// delimiter that gives the most such rows (the most columns on a tie); its first row is the header. Rows are split as the
/// importer splits them: quotes may hold delimiters and line breaks.
struct CSVLayoutSniffer {
    /// One row of the head: blank, a comment, or its delimiter counts outside quotes.
    struct Row {
        var blank = true
        var comment = false
        var counts: [UInt8: Int] = [:]
    }

    let rows: [Row]

    /// The rows of `bytes`; the last one is dropped when `cut` (the head ends inside it).
    init(_ bytes: [UInt8], cut: Bool) {
        var rows: [Row] = []
        var row = Row()
        var quoted = false
        var atStart = true
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted && (byte == 0x0A || byte == 0x0D) {
                if byte == 0x0D && index < bytes.count && bytes[index] == 0x0A { index += 1 }
                rows.append(row)
                (row, atStart) = (Row(), true)
                continue
            }
            if atStart && byte == UInt8(ascii: "#") { row.comment = true }
            if byte != 0x20 && byte != 0x09 { row.blank = false }
            atStart = false
            if !quoted, CSVDialect.delimiters.values.contains(byte) { row.counts[byte, default: 0] += 1 }
        }
        if !row.blank && !cut { rows.append(row) }
        self.rows = rows
    }

    /// `dialect` with the delimiter, preamble, comment prefix and end the rows suggest.
    func applied(to dialect: CSVDialect) -> CSVDialect {
        var dialect = dialect
        let comment = rows.contains { $0.comment && !$0.blank }
        let content = rows.indices.filter { !rows[$0].blank && !(comment && rows[$0].comment) }
        guard let (delimiter, width) = table(among: content) else { return dialect }
        if delimiter != UInt8(ascii: ",") { (dialect.delimiter, dialect.delimiterIsSet) = (delimiter, true) }
        if comment { dialect.comment = "#" }
        guard let header = content.first(where: { fields(rows[$0], delimiter) == width }) else { return dialect }
        // Rows before the header that are neither blank nor comments are a preamble: every row
        // before the header is skipped (the reader counts them all).
        if content.contains(where: { $0 < header }) { dialect.skipRows = header }
        dialect.endsAtBlankLine = secondTableFollows(header: header, delimiter: delimiter, width: width, comment: comment)
        return dialect
    }

    private func fields(_ row: Row, _ delimiter: UInt8) -> Int { (row.counts[delimiter] ?? 0) + 1 }

    /// The delimiter whose most common field count (two or more) most rows share, and that count.
    private func table(among content: [Int]) -> (UInt8, Int)? {
        var best: (delimiter: UInt8, width: Int, rows: Int)?
        for delimiter in [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")] {
            let widths = Dictionary(content.map { (fields(rows[$0], delimiter), 1) }, uniquingKeysWith: +).filter { $0.key >= 2 }
            guard let (width, count) = widths.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }) else { continue }
            // More rows of one width win; on a tie, more columns (`;` exports with decimal commas).
            if count > (best?.rows ?? 0) || (count == best?.rows && width > (best?.width ?? 0)) { best = (delimiter, width, count) }
        }
        return best.map { ($0.delimiter, $0.width) }
    }

    /// Whether, after the header, a blank row is followed by a row of another width.
    private func secondTableFollows(header: Int, delimiter: UInt8, width: Int, comment: Bool) -> Bool {
        var afterBlank = false
        for index in rows.indices where index > header {
            let row = rows[index]
            if row.blank {
                afterBlank = true
            } else if !(comment && row.comment) {
                if afterBlank && fields(row, delimiter) != width { return true }
                afterBlank = false
            }
        }
        return false
    }
}
