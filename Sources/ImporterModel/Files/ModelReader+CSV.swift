import Yams

/// The model file's options for feeds written for people: a CSV's dialect (`csv:`) and numbers
/// with thousands separators and decimal commas (`format:` as a mapping).
extension ModelReader {
    /// `format: {thousands: ",", decimal: "."}`: how a number written for people is read.
    mutating func numberFormat(_ node: Node, _ path: String) -> NumberFormat? {
        guard let fields = mapping(node, path, allowed: ["thousands", "decimal"]) else { return nil }
        func mark(_ key: String, allowed: [String]) -> UInt8? {
            guard let text = string(fields, key, path, in: node) else { return nil }
            guard allowed.contains(text), let byte = text.utf8.first else {
                problem(fields[key], "\(path).\(key)", "'\(text)' is not one of \(allowed.map { "'\($0)'" }.joined(separator: ", "))")
                return nil
            }
            return byte
        }
        let thousands = mark("thousands", allowed: [",", ".", " ", "'", "_"])
        let decimal = mark("decimal", allowed: [".", ","]) ?? UInt8(ascii: ".")
        if thousands == decimal { problem(node, path, "'thousands' and 'decimal' must differ") }
        return NumberFormat(thousands: thousands, decimal: decimal)
    }

    /// `csv:` of a feed mapping: delimiter, encoding, preamble, comments, where records end.
    mutating func csvDialect(_ node: Node, _ path: String) -> CSVDialect {
        var dialect = CSVDialect()
        guard let fields = mapping(node, path, allowed: ["delimiter", "encoding", "skip-rows", "header-row", "comment", "end"]) else { return dialect }
        if let text = string(fields, "delimiter", path, in: node) {
            if let byte = CSVDialect.delimiters[text] {
                dialect.delimiter = byte
                dialect.delimiterIsSet = true
            } else {
                problem(fields["delimiter"], "\(path).delimiter", "'\(text)' is not a delimiter importer reads (',', ';', 'tab' or '|')")
            }
        }
        if let text = string(fields, "encoding", path, in: node) {
            if let encoding = TextEncoding(name: text) {
                dialect.encoding = encoding
            } else {
                problem(fields["encoding"], "\(path).encoding", "'\(text)' is not an encoding importer reads (\(TextEncoding.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        for (key, offset) in [("skip-rows", 0), ("header-row", 1)] {
            guard let item = fields[key] else { continue }
            guard let number = item.int, number >= offset else {
                problem(item, "\(path).\(key)", offset == 0 ? "expected a count of lines (0 or more)" : "expected the header's line number (1 or more)")
                continue
            }
            if fields["skip-rows"] != nil && fields["header-row"] != nil { problem(item, "\(path).\(key)", "give 'skip-rows' or 'header-row', not both") }
            dialect.skipRows = number - offset
        }
        if let comment = string(fields, "comment", path, in: node) {
            if comment.isEmpty { problem(fields["comment"], "\(path).comment", "expected a prefix such as '#'") } else { dialect.comment = comment }
        }
        if let end = string(fields, "end", path, in: node) {
            switch end {
            case "blank-line": dialect.endsAtBlankLine = true
            case "file": dialect.endsAtBlankLine = false
            default: problem(fields["end"], "\(path).end", "'\(end)' is not where records end ('file' or 'blank-line')")
            }
        }
        return dialect
    }
}
