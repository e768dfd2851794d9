import Foundation
import ImporterStore
import ImporterSupport

/// The Markdown report: a title, a summary table, the transactions, the views' effects and a table
/// of the changes (at most `changeLimit` rows, then "… and N more changes").
///
/// Every table cell is escaped so the table reads back exactly: `\` `|` `&` `<` `` ` `` `*` `[`
/// `]` `~` (and `_` at word boundaries) get a backslash, a line feed is `<br>`, other control
/// characters and leading or trailing spaces are numeric character references (`&#32;`). A reader
/// undoes `\x`, `<br>` and `&#N;`; everything else is literal. Values use `ReportLiteral`.
public struct MarkdownReportRenderer {
    /// The store reported on (its path) and the snapshot of it the report reads (the caller's
    /// transaction).
    public var store: Store
    public var snapshot: StoreSnapshot
    /// Rows of the changes table before "… and N more changes".
    public var changeLimit = 1_000

    public init(store: Store, snapshot: StoreSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    public func render(_ content: ReportContent, to output: OutputSink) throws {
        writeHeader(content, to: output)
        writeTables(content, to: output)
        writeNotes(content, to: output)
        try writeChanges(content, to: output)
    }

    /// The title and what the report is of: store, transaction(s), author, sources.
    private func writeHeader(_ content: ReportContent, to output: OutputSink) {
        output.write("# \(Self.escape(content.title))\n\n")
        output.write("- Store: \(Self.escape(store.path))\n")
        switch content.transactions.count {
        case 0:
            output.write("- No changes\n")
        case 1:
            let transaction = content.transactions[0]
            output.write(content.dryRun ? "- Transaction: \(transaction.number), not written (dry run: no token)\n"
                : "- Transaction: \(transaction.number), token \(Self.escape(transaction.token))\n")
            output.write("- Author: \(Self.escape(transaction.author)), at \(Self.escape(transaction.timestamp))\n")
            if !transaction.sources.isEmpty {
                output.write("- Sources: \(transaction.sources.map(Self.escape).joined(separator: ", "))\n")
            }
        default:
            output.write("- Transactions: \(content.transactions.count) (\(content.transactions[0].number)–\(content.transactions[content.transactions.count - 1].number))\n")
        }
        output.write("\n")
    }

    /// The summary per entity, the transactions of a range, the views' effects.
    private func writeTables(_ content: ReportContent, to output: OutputSink) {
        output.write("## Summary\n\n")
        output.write("| entity | inserted | updated | deleted | unchanged | duplicates | rejected |\n")
        output.write("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
        func countsRow(_ name: String, _ c: ChangeCounts) {
            output.write("| \(name) | \(c.inserted) | \(c.updated) | \(c.deleted) | \(c.unchanged) | \(c.duplicates) | \(c.rejected) |\n")
        }
        for (name, counts) in content.entities { countsRow(Self.escape(name), counts) }
        countsRow("**total**", content.totals)
        output.write("\n")

        if content.transactions.count > 1 {
            output.write("## Transactions\n\n")
            output.write("| number | token | timestamp | author | changes |\n")
            output.write("| ---: | --- | --- | --- | ---: |\n")
            for transaction in content.transactions {
                output.write("| \(transaction.number) | \(Self.escape(transaction.token)) | \(Self.escape(transaction.timestamp)) | \(Self.escape(transaction.author)) | \(transaction.totals.changes) |\n")
            }
            output.write("\n")
        }

        if !content.views.isEmpty {
            output.write("## Views\n\n")
            output.write("| view | groups inserted | updated | deleted | recomputed | rebuilt | transactions |\n")
            output.write("| --- | ---: | ---: | ---: | ---: | --- | --- |\n")
            for effect in content.views {
                output.write("| \(Self.escape(effect.view)) | \(effect.insertedGroups) | \(effect.updatedGroups) | \(effect.deletedGroups) | \(effect.recomputedGroups) | \(effect.rebuilt ? "yes" : "no") | \(HTMLReportRenderer.transactionRange(effect)) |\n")
            }
            output.write("\n")
        }
    }

    /// Why a run was refused, its warnings and its rejects.
    private func writeNotes(_ content: ReportContent, to output: OutputSink) {
        /// A section listing `items` (nothing when there are none).
        func list(_ title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            output.write("## \(title)\n\n")
            for item in items { output.write("- \(Self.escape(item))\n") }
            output.write("\n")
        }
        list("Refused", content.errors)
        list("Warnings", content.warnings)

        if !content.rejects.isEmpty {
            output.write("## Rejects\n\n")
            for reject in content.rejects.prefix(changeLimit) { output.write("- \(Self.escape(reject.description))\n") }
            if content.rejects.count > changeLimit { output.write("\n… and \(content.rejects.count - changeLimit) more rejects\n") }
            output.write("\n")
        }
    }

    /// The changes table (the first `changeLimit` changes), each transaction's children's changes
    /// under their parent's (`ChangeTree`: the entity marked `↳`, a parent without a change of its
    /// own as a row of its own).
    private func writeChanges(_ content: ReportContent, to output: OutputSink) throws {
        output.write("## Changes\n\n")
        var total = 0
        var tree = ChangeTree<Int64>(parents: content.parents)
        var current: Int64?
        func flush() {
            tree.walk { record in
                let entity = (record.depth == 0 ? "" : String(repeating: "\u{A0}\u{A0}", count: record.depth - 1) + "↳ ") + record.entity
                guard let (change, number) = record.entry else {
                    return output.write("| \(current.map(String.init) ?? "") | \(Self.escape(entity)) | \(Self.escape(record.ownKey)) | · | |\n")
                }
                output.write("| \(number) | \(Self.escape(entity)) | \(Self.escape(ReportLiteral.pairs(change.key, separator: "; "))) | \(change.isRekey ? "update (re-keyed)" : change.type.rawValue) | \(Self.escape(Self.changesCell(change))) |\n")
            }
            tree = ChangeTree(parents: content.parents)
        }
        try content.forEachChange(in: snapshot) { change, transaction in
            total += 1
            guard total <= changeLimit else { return }
            if total == 1 {
                output.write("| transaction | entity | key | type | changes |\n")
                output.write("| ---: | --- | --- | --- | --- |\n")
            }
            if current != transaction.number { flush() }
            current = transaction.number
            tree.add(change, transaction.number)
        }
        flush()
        if total == 0 {
            output.write("No changes.\n")
        } else if total > changeLimit {
            output.write("\n… and \(total - changeLimit) more change\(total - changeLimit == 1 ? "" : "s")\n")
        }
    }

    /// Updates: `attribute: old → new` joined with `; `; inserts: the non-null values and deletes
    /// the tombstone, as `name=value` joined with `; `.
    static func changesCell(_ change: Change) -> String {
        switch change.type {
        case .update:
            change.changed.map { "\($0.attribute): \(ReportLiteral.value($0.old)) → \(ReportLiteral.value($0.new))" }.joined(separator: "; ")
        case .insert, .delete:
            ReportLiteral.pairs(change.listedValues(), separator: "; ")
        }
    }

    /// `text` escaped for a Markdown table cell (or a line of text), so it renders as is and reads
    /// back exactly (see the type's documentation).
    public static func escape(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = ""
        result.unicodeScalars.reserveCapacity(scalars.count + 8)
        func isWordScalar(_ index: Int) -> Bool {
            index >= 0 && index < scalars.count && (scalars[index].properties.isAlphabetic || scalars[index].properties.numericType != nil)
        }
        let firstKept = scalars.firstIndex { $0 != " " } ?? scalars.count
        let lastKept = scalars.lastIndex { $0 != " " } ?? -1
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case " " where index < firstKept || index > lastKept:
                result += "&#32;"
            case "\\", "|", "&", "<", "`", "*", "[", "]", "~":
                result += "\\"
                result.unicodeScalars.append(scalar)
            case "_" where !(isWordScalar(index - 1) && isWordScalar(index + 1)):
                result += "\\_"
            case "\n":
                result += "<br>"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "&#\(scalar.value);"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
