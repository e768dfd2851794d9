import Foundation
import ImporterStore
import ImporterSupport

/// Renders a run report: `text` for people, `json` for programs (one object, see Docs/COMMANDS.md, "JSON report"),
/// `ndjson` as a header line, one line per change and a footer with the totals.
public struct RunReportRenderer {
    /// What the changes are read from (the caller's transaction).
    public var snapshot: StoreSnapshot
    /// Changes listed in the text report before "and N more".
    public var textChangeLimit = 20

    public init(snapshot: StoreSnapshot) {
        self.snapshot = snapshot
    }

    public func renderJSON(_ content: ReportContent, to output: OutputSink) throws {
        try JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("transaction", transaction: content.transactions.first)
            json.field("dry_run", content.dryRun)
            if content.notModified { json.field("not_modified", true) }
            if !content.syncWindows.isEmpty {
                json.key("sync_windows")
                json.beginArray()
                for window in content.syncWindows {
                    json.writePairs([("entity", .text(window.entity)), ("attribute", .text(window.attribute)), ("from", window.from ?? .null),
                                     ("to", window.to ?? .null), ("origin", .text(window.origin))])
                }
                json.endArray()
            }
            json.key("totals")
            json.writeCounts(content.totals)
            json.key("entities")
            json.writeEntities(content.entities)
            json.key("changes")
            json.beginArray()
            try content.forEachChange(in: snapshot) { change, _ in json.writeChange(change, parents: content.parents) }
            json.endArray()
            json.key("views")
            json.writeViews(content.views)
            json.key("rejects")
            json.beginArray()
            for reject in content.rejects { json.writeReject(reject) }
            json.endArray()
            json.field("warnings", strings: content.warnings)
            json.field("errors", strings: content.errors)
            json.endObject()
        }
    }

    public func renderNDJSON(_ content: ReportContent, to output: OutputSink) throws {
        let transaction = content.transactions.first
        JSONWriter.document(to: output) { header in
            header.beginObject()
            header.field("record", "header")
            header.field("transaction", transaction: transaction)
            header.field("dry_run", content.dryRun)
            if content.notModified { header.field("not_modified", true) }
            header.endObject()
        }
        try content.forEachChange(in: snapshot) { change, _ in
            JSONWriter.document(to: output) { $0.writeChange(change, token: transaction?.token, parents: content.parents) }
        }
        JSONWriter.document(to: output) { footer in
            footer.beginObject()
            footer.field("record", "footer")
            footer.key("totals")
            footer.writeCounts(content.totals)
            footer.key("entities")
            footer.writeEntities(content.entities)
            footer.key("views")
            footer.writeViews(content.views)
            footer.field("warnings", strings: content.warnings)
            footer.field("errors", strings: content.errors)
            footer.endObject()
        }
    }

    public func renderText(_ content: ReportContent, to output: OutputSink) throws {
        if content.dryRun { output.write("Dry run — nothing was written. What the run would have done:\n") }
        if !content.errors.isEmpty {
            output.write("Refused; nothing was written. What the run would have done:\n")
            for error in content.errors { output.write("error: \(error)\n") }
        } else if let transaction = content.transactions.first {
            output.write(content.dryRun ? "Transaction \(transaction.number) (not written, no token) by \(transaction.author) at \(transaction.timestamp)\n"
                : "Transaction \(transaction.number) (token \(transaction.token)) by \(transaction.author) at \(transaction.timestamp)\n")
        } else if content.notModified {
            output.write("Not modified: no feed changed since its last import; nothing was read.\n")
        } else {
            output.write("No changes.\n")
        }
        for (name, counts) in content.entities {
            output.write("\(name): \(TextFormatting.counts(counts))\n")
        }
        for effect in content.views { output.write(TextFormatting.viewEffect(effect) + "\n") }
        for window in content.syncWindows { output.write("Sync window: \(window)\n") }
        for warning in content.warnings { output.write("warning: \(warning)\n") }
        for reject in content.rejects.prefix(textChangeLimit) { output.write("rejected: \(reject)\n") }
        guard content.totals.changes > 0, !content.transactions.isEmpty else { return }
        var shown = 0
        var grouped = GroupedChangeLines(parents: content.parents)
        try content.forEachChange(in: snapshot, limit: textChangeLimit) { change, _ in
            grouped.add(change)
            shown += 1
        }
        for line in grouped.lines() { output.write(line + "\n") }
        if content.totals.changes > shown {
            output.write("  … and \(content.totals.changes - shown) more change\(content.totals.changes - shown == 1 ? "" : "s")\n")
        }
    }
}
