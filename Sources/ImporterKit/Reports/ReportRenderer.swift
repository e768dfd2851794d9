/// The formats reports are printed in.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// For people, on a terminal: a summary and the first changes.
    case text
    /// One object: the documented contract (README, "JSON report").
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

/// Renders a run report: `text` for people, `json` for programs (one object, see the README).
public struct RunReportRenderer {
    public var store: Store
    /// Changes listed in the text report before "and N more".
    public var textChangeLimit = 20

    public init(store: Store) {
        self.store = store
    }

    public func render(_ report: RunReport, as format: ReportFormat, to output: OutputSink) throws {
        switch format {
        case .json: try renderJSON(report, to: output)
        case .ndjson: try renderNDJSON(report, to: output)
        case .text: try renderText(report, to: output)
        default: try ReportWriter(store: store).write(ReportContent(run: report, storePath: store.path), as: format, to: output)
        }
    }

    func renderJSON(_ report: RunReport, to output: OutputSink) throws {
        var json = JSONWriter(output: output)
        json.beginObject()
        json.key("transaction")
        if let transaction = report.transaction {
            json.beginObject()
            json.writeTransactionFields(transaction)
            json.endObject()
        } else {
            json.null()
        }
        json.key("totals")
        json.writeCounts(report.totals)
        json.key("entities")
        json.writeEntities(report.entities)
        json.key("changes")
        json.beginArray()
        try report.forEachChange(in: store) { json.writeChange($0) }
        json.endArray()
        json.key("views")
        json.writeViews(report.views)
        json.key("rejects")
        json.beginArray()
        for reject in report.rejects { json.writeReject(reject) }
        json.endArray()
        json.key("warnings")
        json.beginArray()
        for warning in report.warnings { json.string(warning) }
        json.endArray()
        json.endObject()
        output.write("\n")
    }

    func renderNDJSON(_ report: RunReport, to output: OutputSink) throws {
        var header = JSONWriter(output: output)
        header.beginObject()
        header.field("record", "header")
        header.key("transaction")
        if let transaction = report.transaction {
            header.beginObject()
            header.writeTransactionFields(transaction)
            header.endObject()
        } else {
            header.null()
        }
        header.endObject()
        output.write("\n")
        try report.forEachChange(in: store) { change in
            var line = JSONWriter(output: output)
            line.writeChange(change, token: report.transaction?.token)
            output.write("\n")
        }
        var footer = JSONWriter(output: output)
        footer.beginObject()
        footer.field("record", "footer")
        footer.key("totals")
        footer.writeCounts(report.totals)
        footer.key("entities")
        footer.writeEntities(report.entities)
        footer.key("views")
        footer.writeViews(report.views)
        footer.key("warnings")
        footer.beginArray()
        for warning in report.warnings { footer.string(warning) }
        footer.endArray()
        footer.endObject()
        output.write("\n")
    }

    func renderText(_ report: RunReport, to output: OutputSink) throws {
        if let transaction = report.transaction {
            output.write("Transaction \(transaction.number) (token \(transaction.token)) by \(transaction.author) at \(transaction.timestamp)\n")
        } else {
            output.write("No changes.\n")
        }
        for (name, counts) in report.entities {
            output.write("\(name): \(TextFormatting.counts(counts))\n")
        }
        for effect in report.views { output.write(TextFormatting.viewEffect(effect) + "\n") }
        for warning in report.warnings { output.write("warning: \(warning)\n") }
        for reject in report.rejects.prefix(textChangeLimit) { output.write("rejected: \(reject)\n") }
        guard report.totals.changes > 0 else { return }
        var shown = 0
        try report.forEachChange(in: store, limit: textChangeLimit) { change in
            output.write(TextFormatting.changeLine(change) + "\n")
            shown += 1
        }
        if report.totals.changes > shown {
            output.write("  … and \(report.totals.changes - shown) more change\(report.totals.changes - shown == 1 ? "" : "s")\n")
        }
    }
}

/// Text pieces shared by the text outputs.
public enum TextFormatting {
    public static func counts(_ c: ChangeCounts) -> String {
        "\(c.inserted) inserted, \(c.updated) updated, \(c.deleted) deleted, \(c.unchanged) unchanged, "
            + "\(c.duplicates) duplicate\(c.duplicates == 1 ? "" : "s"), \(c.rejected) rejected"
    }

    /// `View fireball_by_year: 1 group inserted, 2 updated, 0 deleted (built)`.
    public static func viewEffect(_ effect: ViewEffect) -> String {
        "View \(effect.view): \(effect.insertedGroups) group\(effect.insertedGroups == 1 ? "" : "s") inserted, \(effect.updatedGroups) updated, \(effect.deletedGroups) deleted"
            + (effect.rebuilt ? " (built)" : "")
    }

    /// `mailer [external] token … (transaction 3), lag 1 transaction(s), 2 change(s), last replay …, filters`.
    public static func consumerLine(_ status: ConsumerStatus, purgedThrough: Int64) -> String {
        let consumer = status.consumer
        var line = "\(consumer.name) [\(consumer.kind.rawValue)] token \(status.token) (transaction \(consumer.tokenNumber))"
        if let lag = status.lag {
            line += ", lag \(lag.transactions) transaction(s), \(lag.changes) change(s)"
        } else {
            line += ", EXPIRED (history through \(purgedThrough) purged)"
        }
        line += ", last replay \(consumer.lastReplayAt ?? "never")"
        if !consumer.entities.isEmpty { line += ", entities \(consumer.entities.joined(separator: ","))" }
        if !consumer.attributes.isEmpty { line += ", attributes \(consumer.attributes.joined(separator: ","))" }
        if !consumer.excludedAuthors.isEmpty { line += ", excluding authors \(consumer.excludedAuthors.joined(separator: ","))" }
        return line
    }

    /// `  + key  a=1 b=2`, `  ~ key  a: 1 → 2`, `  - key  (tombstone)`.
    public static func changeLine(_ change: Change) -> String {
        let keyNames = Set(change.key.map(\.0))
        switch change.type {
        case .insert:
            let values = change.values.filter { !keyNames.contains($0.0) && !$0.1.isNull }.map { "\($0.0)=\($0.1)" }
            return "  + \(change.entity) \(change.keyDescription)  \(values.joined(separator: " "))"
        case .update:
            let changes = change.changed.map { "\($0.attribute): \($0.old) → \($0.new)" }
            return "  ~ \(change.entity) \(change.keyDescription)  \(changes.joined(separator: "; "))"
        case .delete:
            let tombstone = change.tombstone.filter { !keyNames.contains($0.0) }.map { "\($0.0)=\($0.1)" }
            return "  - \(change.entity) \(change.keyDescription)  (\(tombstone.joined(separator: " ")))"
        }
    }
}
