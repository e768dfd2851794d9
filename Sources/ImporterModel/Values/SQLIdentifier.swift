import Foundation

/// Validation of names that come from a model and reach a store (quoting is the backend's).
///
/// A model can never inject SQL: every name is emitted double-quoted, its double quotes doubled.
/// Two rules:
/// - attribute names (what a feed calls its fields) may be any printable text: SQL keywords
///   (`select`), mixed case, spaces, punctuation, non-ASCII (`Tiefe_ü`, `距離`); not control
///   characters, not a comma (the separator of a change's list of changed attributes), not
///   leading or trailing white space;
/// - the names of tables and indexes (entities' tables, views) and of aggregates stay plain:
///   `[A-Za-z_][A-Za-z0-9_]*`.
///
/// Lengths keep every identifier derived from a name within PostgreSQL's 63 bytes (it truncates
/// longer ones silently, which could make two of them one): see `Limit`.
public enum SQLIdentifier {
    /// The longest name, in UTF-8 bytes, of each kind, so that the longest identifier derived from
    /// it fits in PostgreSQL's 63 bytes (`NAMEDATALEN` - 1).
    public enum Limit {
        /// PostgreSQL's identifier length.
        public static let identifier = 63
        /// `importer_old.<attribute>`: a change table's column of an update's old value.
        public static let attribute = identifier - "importer_old.".utf8.count
        /// `importer_change_<table>_record`: a change table's index.
        public static let table = identifier - "importer_change__record".utf8.count
        /// `importer_count_<aggregate>`: an average's running count.
        public static let aggregate = identifier - "importer_count_".utf8.count
        /// `importer_group_<view>`: a view table's unique index.
        public static let view = identifier - "importer_group_".utf8.count
    }

    /// Why `name` cannot be a table, view or aggregate name (nil when it can): letters, digits
    /// and `_`, not starting with a digit, at most `limit` bytes.
    public static func problem(with name: String, limit: Int = Limit.identifier) -> String? {
        guard !name.isEmpty else { return "empty name" }
        guard name.utf8.count <= limit else { return "'\(name)' is longer than \(limit) bytes" }
        var first = true
        for byte in name.utf8 {
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
            let isDigit = byte >= 48 && byte <= 57
            if !(isLetter || (!first && isDigit)) {
                return "'\(name)' is not a valid name (letters, digits and _; not starting with a digit)"
            }
            first = false
        }
        return nil
    }

    /// Why `name` cannot be an attribute name (nil when it can): see the type's rules.
    public static func attributeProblem(with name: String) -> String? {
        guard !name.isEmpty else { return "empty name" }
        let shown = name.unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        guard name.utf8.count <= Limit.attribute else {
            return "'\(shown)' is \(name.utf8.count) bytes long; an attribute name may have at most \(Limit.attribute) bytes (UTF-8)"
        }
        if let scalar = name.unicodeScalars.first(where: { [.control, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }) {
            return "'\(shown)' contains the unprintable character U+\(String(format: "%04X", scalar.value))"
        }
        if name.contains(",") {
            return "'\(name)' contains a comma (importer lists changed attributes separated by commas)"
        }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
            return "'\(name)' begins or ends with white space"
        }
        return nil
    }

    /// Names in the store's own namespaces.
    public static func isReserved(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("importer_") || lower.hasPrefix("sqlite_")
    }
}
