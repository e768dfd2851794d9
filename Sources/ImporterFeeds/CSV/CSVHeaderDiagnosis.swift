/// What a CSV header that holds none of the mapped columns most likely is, said in the message:
/// an HTML page saved as CSV (an error page from a cron download), or a file whose delimiter is not
/// the mapping's (`;` from a spreadsheet in a comma-decimal locale, a tab).
enum CSVHeaderDiagnosis {
    static func noMappedColumn(header: [String], requested: [String], delimiter: UInt8 = UInt8(ascii: ",")) -> String {
        let shown = header.prefix(8).map { "'\($0.prefix(40))'" }.joined(separator: ", ") + (header.count > 8 ? ", …" : "")
        var text = "the header holds none of the mapped columns (\(requested.prefix(8).joined(separator: ", ")))"
        let first = header.first?.drop { $0 == " " || $0 == "\t" }.lowercased() ?? ""
        if first.hasPrefix("<!doctype html") || first.hasPrefix("<html") || first.hasPrefix("<head") || first.hasPrefix("<") {
            return text + ": it looks like HTML (an error or login page?), not CSV; it begins \(shown)"
        }
        text += "; it has \(shown)"
        if header.count == 1, let only = header.first {
            for (byte, name, option) in [(UInt8(ascii: ";"), "';'", "\";\""), (UInt8(ascii: "\t"), "tab", "tab"), (UInt8(ascii: "|"), "'|'", "\"|\"")]
            where byte != delimiter && only.utf8.contains(byte) {
                return text + ": the file looks \(name)-separated (say `csv: {delimiter: \(option)}` in the mapping)"
            }
        }
        return text
    }
}
