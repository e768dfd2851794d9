/// How a CSV feed is written, when not as RFC 4180 says (`csv:` in a feed mapping): its
/// delimiter, its encoding, the lines before its header, comment lines, and where its records end.
public struct CSVDialect: Sendable, Equatable {
    /// The byte between fields: `,` (the default), `;`, a tab or `|`.
    public var delimiter = UInt8(ascii: ",")
    /// Whether the mapping gave the delimiter (else a `.tsv` file is read with tabs).
    public var delimiterIsSet = false
    public var encoding = TextEncoding.utf8
    /// Lines before the header row (a preamble: a title, an export date), skipped whatever they hold.
    public var skipRows = 0
    /// Rows whose first bytes are this prefix are skipped, before the header as after it.
    public var comment: String?
    /// A blank line after the header ends the records (a second table or a footer may follow);
    /// otherwise blank lines are skipped.
    public var endsAtBlankLine = false

    public init() {}

    /// The delimiters a mapping may name, by their names in the model file.
    public static let delimiters: [String: UInt8] = [",": UInt8(ascii: ","), ";": UInt8(ascii: ";"), "tab": 0x09, "\t": 0x09, "|": UInt8(ascii: "|")]

    /// The delimiter as the model file writes it.
    public var delimiterName: String { delimiter == 0x09 ? "tab" : String(UnicodeScalar(delimiter)) }

    /// What `check` says of the dialect it read with.
    public var summary: String {
        var parts = ["delimiter \(delimiter == 0x09 ? "tab" : "'\(delimiterName)'")", "encoding \(encoding.rawValue)"]
        if skipRows > 0 { parts.append("\(skipRows) preamble line\(skipRows == 1 ? "" : "s") skipped") }
        if let comment { parts.append("comment lines '\(comment)'") }
        if endsAtBlankLine { parts.append("records end at a blank line") }
        return parts.joined(separator: ", ")
    }
}

/// The text encodings a feed may be read from; every one is decoded to UTF-8 as it is read, and a
/// byte the encoding does not define is a located error, never a replacement character.
public enum TextEncoding: String, Sendable, Equatable, CaseIterable {
    case utf8 = "utf-8"
    /// With a byte order mark (little- or big-endian).
    case utf16 = "utf-16"
    /// ISO-8859-1; its C1 control bytes (0x80–0x9F) are refused as the sign of a Windows-1252 file.
    case latin1 = "latin-1"
    case windows1252 = "windows-1252"

    /// The encoding a model file names, in any of its usual spellings.
    public init?(name: String) {
        switch name.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "utf-8", "utf8": self = .utf8
        case "utf-16", "utf16": self = .utf16
        case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1": self = .latin1
        case "windows-1252", "cp1252", "win-1252", "windows1252": self = .windows1252
        default: return nil
        }
    }
}
