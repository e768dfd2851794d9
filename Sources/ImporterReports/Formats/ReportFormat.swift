import Foundation

/// The formats reports are printed in.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// For people, on a terminal: a summary and the first changes.
    case text
    /// One object: the documented contract (Docs/COMMANDS.md, "JSON report").
    case json
    /// One JSON object per line: a header, one line per change, a footer with the totals.
    case ndjson
    /// A summary table and a changes table, for a pull request or a chat message.
    case markdown
    /// One row per changed attribute: token, entity, key, type, attribute, old, new.
    case csv
    /// One self-contained page: summary, charts (inline SVG), the changes table.
    case html
}
