import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// The HTML report: one self-contained HTML5 page (inline CSS and SVG, no script, no external
/// resource) with the run summary, the per-entity counts, a chart of the changes by type, a chart
/// of each single-group derived view of the store, and the changes table (at most `changeLimit`
/// rows, then the exact number of changes not shown), so the page of a huge run stays small.
public struct HTMLReportRenderer {
    /// The store reported on (its path and entities) and the snapshot of it the report reads (the caller's
    /// transaction).
    public var store: Store
    public var snapshot: StoreSnapshot
    /// Rows of the changes table; the rest is counted, not shown.
    public var changeLimit = 1_000
    /// Rows of the transactions table of a range report.
    public var transactionLimit = 1_000
    public var rejectLimit = 100
    /// Groups charted (and listed) per view.
    public var groupLimit = 200
    /// Characters of a text value shown in the changes table.
    public var valueLimit = 160

    public init(store: Store, snapshot: StoreSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    public func render(_ content: ReportContent, to output: OutputSink) throws {
        let e = HTMLEscaping.escape
        output.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        output.write("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        output.write("<meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"generator\" content=\"importer\">\n")
        output.write("<title>\(e(content.title))</title>\n")
        output.write("<link rel=\"icon\" href=\"data:,\">\n")
        output.write("<style>\n\(HTMLStyle.css)\n</style>\n</head>\n<body>\n")
        output.write("<header>\n<h1>\(e(content.title))</h1>\n<p class=\"subtitle\">\(e(store.path))</p>\n</header>\n<main>\n")
        writeSummary(content, to: output)
        writeEntities(content, to: output)
        writeChangesChart(content, to: output)
        writeViews(content, to: output)
        writeWarningsAndRejects(content, to: output)
        try writeChanges(content, to: output)
        output.write("</main>\n<footer>importer report · \(e(store.path))</footer>\n</body>\n</html>\n")
    }

    // MARK: Sections

    func writeSummary(_ content: ReportContent, to output: OutputSink) {
        let e = HTMLEscaping.escape
        output.write("<section class=\"card\" id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"meta\">\n")
        output.write("<dt>Store</dt><dd class=\"mono\">\(e(store.path))</dd>\n")
        if content.transactions.count == 1, let transaction = content.transactions.first {
            output.write("<dt>Transaction</dt><dd>\(transaction.number)</dd>\n")
            output.write(content.dryRun ? "<dt>Token</dt><dd>none: a dry run, nothing was written</dd>\n" : "<dt>Token</dt><dd class=\"mono\">\(e(transaction.token))</dd>\n")
            output.write("<dt>Author</dt><dd>\(e(transaction.author))</dd>\n")
            output.write("<dt>Timestamp</dt><dd><time datetime=\"\(e(transaction.timestamp))\">\(e(transaction.timestamp))</time></dd>\n")
            output.write("<dt>Context</dt><dd>\(e(transaction.context)) on \(e(transaction.host)), process \(transaction.processID)</dd>\n")
            if !transaction.sources.isEmpty {
                output.write("<dt>Sources</dt><dd class=\"mono\">\(transaction.sources.map(e).joined(separator: "<br>"))</dd>\n")
            }
        } else if let first = content.transactions.first, let last = content.transactions.last {
            output.write("<dt>Transactions</dt><dd>\(HTMLEscaping.grouped(content.transactions.count)), numbers \(first.number)–\(last.number)</dd>\n")
            output.write("<dt>From</dt><dd><time datetime=\"\(e(first.timestamp))\">\(e(first.timestamp))</time></dd>\n")
            output.write("<dt>Through</dt><dd><time datetime=\"\(e(last.timestamp))\">\(e(last.timestamp))</time></dd>\n")
        }
        output.write("</dl>\n")
        if content.transactions.isEmpty { output.write("<p class=\"empty\">No changes</p>\n") }
        let totals = content.totals
        output.write("<div class=\"stats\">\n")
        for (label, value, css) in [("inserted", totals.inserted, "insert"), ("updated", totals.updated, "update"), ("deleted", totals.deleted, "delete"),
                                    ("unchanged", totals.unchanged, ""), ("duplicates", totals.duplicates, ""), ("rejected", totals.rejected, "")] {
            output.write("<div class=\"stat \(css)\"><span class=\"number\"><data value=\"\(value)\">\(HTMLEscaping.grouped(value))</data></span><span class=\"label\">\(label)</span></div>\n")
        }
        output.write("</div>\n")
        if content.transactions.count > 1 {
            output.write("<h3>Transactions</h3>\n<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"num\">number</th><th>token</th><th>timestamp</th><th>author</th><th class=\"num\">changes</th></tr></thead>\n<tbody>\n")
            for transaction in content.transactions.prefix(transactionLimit) {
                output.write("<tr><td class=\"num\">\(transaction.number)</td><td class=\"mono\">\(e(transaction.token))</td><td>\(e(transaction.timestamp))</td><td>\(e(transaction.author))</td><td class=\"num\">\(HTMLEscaping.grouped(transaction.totals.changes))</td></tr>\n")
            }
            output.write("</tbody>\n</table></div>\n")
            if content.transactions.count > transactionLimit {
                let rest = content.transactions.count - transactionLimit
                output.write("<p class=\"note\"><data value=\"\(rest)\">\(HTMLEscaping.grouped(rest))</data> more transactions not shown.</p>\n")
            }
        }
        output.write("</section>\n")
    }

    func writeEntities(_ content: ReportContent, to output: OutputSink) {
        output.write("<section class=\"card\" id=\"entities\">\n<h2>Entities</h2>\n<div class=\"table-wrap\"><table>\n")
        output.write("<thead><tr><th>entity</th><th class=\"num\">inserted</th><th class=\"num\">updated</th><th class=\"num\">deleted</th><th class=\"num\">unchanged</th><th class=\"num\">duplicates</th><th class=\"num\">rejected</th></tr></thead>\n<tbody>\n")
        func cells(_ c: ChangeCounts) -> String {
            [c.inserted, c.updated, c.deleted, c.unchanged, c.duplicates, c.rejected].map { "<td class=\"num\">\(HTMLEscaping.grouped($0))</td>" }.joined()
        }
        for (name, counts) in content.entities {
            output.write("<tr><th scope=\"row\">\(HTMLEscaping.escape(name))</th>\(cells(counts))</tr>\n")
        }
        if content.entities.isEmpty { output.write("<tr><td colspan=\"7\" class=\"muted\">No entity was read.</td></tr>\n") }
        output.write("</tbody>\n<tfoot><tr><th scope=\"row\">total</th>\(cells(content.totals))</tr></tfoot>\n</table></div>\n</section>\n")
    }

    func writeChangesChart(_ content: ReportContent, to output: OutputSink) {
        output.write("<section class=\"card\" id=\"changes-by-type\">\n<h2>Changes by type</h2>\n")
        let entities = content.entities.filter { $0.1.changes > 0 }
        if entities.isEmpty {
            output.write("<p class=\"muted\">No inserts, updates or deletes.</p>\n</section>\n")
            return
        }
        let summary = entities.map { "\($0.0): \($0.1.inserted) inserted, \($0.1.updated) updated, \($0.1.deleted) deleted" }.joined(separator: "; ")
        let chart = HTMLChart(
            id: "chart-changes", title: "Changes by type per entity", summary: summary,
            categories: entities.map(\.0), categoryAxisTitle: "entity", leftAxisTitle: "records changed", rightAxisTitle: nil,
            series: [
                .init(name: "inserted", cssClass: "insert", kind: .bar, axis: .left, values: entities.map { Double($0.1.inserted) }, integral: true),
                .init(name: "updated", cssClass: "update", kind: .bar, axis: .left, values: entities.map { Double($0.1.updated) }, integral: true),
                .init(name: "deleted", cssClass: "delete", kind: .bar, axis: .left, values: entities.map { Double($0.1.deleted) }, integral: true),
            ])
        output.write(chart.svg())
        output.write("\n</section>\n")
    }

    func writeViews(_ content: ReportContent, to output: OutputSink) {
        let e = HTMLEscaping.escape
        // Views are optional: a store without the views table, or an unreadable one, shows none.
        let definitions = ((try? snapshot.allViews()) ?? []).filter { $0.groupBy.count == 1 }
        let maintainer = ViewMaintainer(entities: store.entities)
        let charted = definitions.compactMap { view in (try? maintainer.rows(view, in: snapshot)).map { (view, $0.columns, $0.rows) } }
        guard !content.views.isEmpty || !charted.isEmpty else { return }
        output.write("<section class=\"card\" id=\"views\">\n<h2>Views</h2>\n")
        if let through = content.through, let head = try? snapshot.history.lastTransactionNumber(), through < head, !charted.isEmpty {
            output.write("<p class=\"note\" id=\"views-current\">The views are shown as they are now (through transaction \(head)), not as they stood at the end of this report (transaction \(through)).</p>\n")
        }
        if !content.views.isEmpty {
            output.write("<div class=\"table-wrap\"><table>\n<thead><tr><th>view</th><th class=\"num\">groups inserted</th><th class=\"num\">updated</th><th class=\"num\">deleted</th><th class=\"num\">recomputed</th><th>rebuilt</th><th>transactions</th></tr></thead>\n<tbody>\n")
            for effect in content.views {
                output.write("<tr><th scope=\"row\">\(e(effect.view))</th><td class=\"num\">\(effect.insertedGroups)</td><td class=\"num\">\(effect.updatedGroups)</td><td class=\"num\">\(effect.deletedGroups)</td><td class=\"num\">\(effect.recomputedGroups)</td><td>\(effect.rebuilt ? "yes" : "no")</td><td>\(Self.transactionRange(effect))</td></tr>\n")
            }
            output.write("</tbody>\n</table></div>\n")
        }
        for (index, (view, columns, rows)) in charted.enumerated() {
            writeViewChart(view, columns: columns, rows: rows, id: "chart-view-\(index + 1)", to: output)
        }
        output.write("</section>\n")
    }

    func writeViewChart(_ view: ViewDefinition, columns: [String], rows: [[Value]], id: String, to output: OutputSink) {
        let e = HTMLEscaping.escape
        output.write("<h3 id=\"view-\(e(view.name))\">\(e(view.name))</h3>\n")
        if let documentation = view.documentation { output.write("<p class=\"muted\">\(e(documentation))</p>\n") }
        guard !rows.isEmpty else {
            output.write("<p class=\"muted\">The view has no groups.</p>\n")
            return
        }
        let group = view.groupBy[0]
        let countAggregate = view.aggregates.first { $0.function == .count && $0.attribute == nil }
            ?? view.aggregates.first { $0.function == .count } ?? view.aggregates[0]
        let sumAggregate = view.aggregates.first { $0.function == .sum && $0.name != countAggregate.name }
        func column(_ name: String) -> Int? { columns.firstIndex(of: name) }
        guard let groupColumn = column(group), let countColumn = column(countAggregate.name) else { return }
        let sumColumn = sumAggregate.flatMap { column($0.name) }
        let shown = Array(rows.prefix(groupLimit))
        var categories = shown.map { $0[groupColumn].description }
        var counts = shown.map { $0[countColumn].doubleValue }
        var sums = shown.map { row in sumColumn.flatMap { row[$0].doubleValue } }
        var summary = "\(rows.count) groups by \(group)"
        var ordered = false
        // Whole-number groups (years) are charted as a continuous range: a missing group has no
        // records, so its count and sum are 0.
        let integers = rows.compactMap { row -> Int64? in if case .integer(let n) = row[groupColumn] { n } else { nil } }
        if integers.count == rows.count, let low = integers.first, let high = integers.last, high > low,
           high - low < Int64(groupLimit), Int64(rows.count) <= high - low {
            let byGroup = Dictionary(rows.map { ($0[groupColumn], $0) }, uniquingKeysWith: { first, _ in first })
            categories = (low...high).map(String.init)
            counts = (low...high).map { byGroup[.integer($0)]?[countColumn].doubleValue ?? 0 }
            sums = (low...high).map { group in sumColumn.flatMap { byGroup[.integer(group)]?[$0].doubleValue } ?? 0 }
            summary += " (groups without records shown as 0)"
            ordered = true
        }
        if let first = categories.first, let last = categories.last { summary += ", from \(first) to \(last)" }
        summary += "; bars: \(countAggregate.name)"
        var series = [HTMLChart.Series(name: countAggregate.name, cssClass: "count", kind: .bar, axis: .left,
                                       values: counts, integral: countAggregate.function == .count)]
        // A line joins neighbours, which only a continuous range of groups (years) has; separate
        // categories (regions) get a second bar each.
        if let sumAggregate, sumColumn != nil {
            series.append(.init(name: sumAggregate.name, cssClass: "sum", kind: ordered ? .line : .bar, axis: .right, values: sums, integral: false))
            summary += "; \(ordered ? "line" : "bars"): \(sumAggregate.name) (sum of \(sumAggregate.attribute ?? ""))"
        }
        let chart = HTMLChart(
            id: id, title: "\(view.name): \(series.map(\.name).joined(separator: " and ")) per \(group)", summary: summary,
            categories: categories, categoryAxisTitle: group, leftAxisTitle: countAggregate.name,
            rightAxisTitle: series.count > 1 ? series[1].name : nil, series: series, labelBars: series.count == 1)
        output.write(chart.svg())
        output.write("\n")
        if rows.count > groupLimit {
            output.write("<p class=\"note\">The first \(groupLimit) of \(HTMLEscaping.grouped(rows.count)) groups are shown.</p>\n")
        }
        output.write("<details><summary>Data of \(e(view.name)) (\(HTMLEscaping.grouped(rows.count)) groups)</summary>\n<div class=\"table-wrap\"><table>\n<thead><tr>")
        for (index, name) in columns.enumerated() { output.write("<th\(index == groupColumn ? "" : " class=\"num\"")>\(e(name))</th>") }
        output.write("</tr></thead>\n<tbody>\n")
        for row in shown {
            output.write("<tr>")
            for (index, value) in row.enumerated() {
                output.write(index == groupColumn ? "<th scope=\"row\">\(displayValue(value))</th>" : "<td class=\"num\">\(aggregateValue(value))</td>")
            }
            output.write("</tr>\n")
        }
        output.write("</tbody>\n</table></div>\n</details>\n")
    }

    func writeWarningsAndRejects(_ content: ReportContent, to output: OutputSink) {
        let e = HTMLEscaping.escape
        /// A card listing `items` (nothing when there are none).
        func list(id: String, title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            output.write("<section class=\"card\" id=\"\(id)\">\n<h2>\(title)</h2>\n<ul class=\"plain\">\n")
            for item in items { output.write("<li>\(e(item))</li>\n") }
            output.write("</ul>\n</section>\n")
        }
        list(id: "errors", title: "Refused: nothing was written", content.errors)
        list(id: "warnings", title: "Warnings", content.warnings)
        if !content.rejects.isEmpty {
            output.write("<section class=\"card\" id=\"rejects\">\n<h2>Rejects</h2>\n<div class=\"table-wrap\"><table>\n")
            output.write("<thead><tr><th>location</th><th>entity</th><th>attribute</th><th>reason</th><th>value</th></tr></thead>\n<tbody>\n")
            for reject in content.rejects.prefix(rejectLimit) {
                output.write("<tr><td class=\"mono\">\(e(reject.location.description))</td><td>\(e(reject.entity))</td><td>\(e(reject.attribute ?? ""))</td><td>\(e(reject.reason))</td><td class=\"mono\">\(reject.rawValue.map { e(truncated($0)) } ?? "<span class=\"null\">none</span>")</td></tr>\n")
            }
            output.write("</tbody>\n</table></div>\n")
            if content.rejects.count > rejectLimit {
                let rest = content.rejects.count - rejectLimit
                output.write("<p class=\"note\"><data value=\"\(rest)\">\(HTMLEscaping.grouped(rest))</data> more rejects not shown.</p>\n")
            }
            output.write("</section>\n")
        }
    }

    func writeChanges(_ content: ReportContent, to output: OutputSink) throws {
        let e = HTMLEscaping.escape
        output.write("<section class=\"card\" id=\"changes\">\n<h2>Changes</h2>\n")
        var total = 0
        var byType: [ChangeType: Int] = [:]
        // Each transaction's children's changes under their parent's (`ChangeTree`).
        var tree = ChangeTree<HistoryTransaction>(parents: content.parents)
        var current: HistoryTransaction?
        func flush() {
            tree.walk { record in writeChangeRow(record, transaction: current, to: output) }
            tree = ChangeTree(parents: content.parents)
        }
        try content.forEachChange(in: snapshot) { change, transaction in
            total += 1
            byType[change.type, default: 0] += 1
            guard total <= changeLimit else { return }
            if total == 1 {
                output.write("<div class=\"table-wrap\"><table class=\"changes\">\n<thead><tr><th class=\"num\">transaction</th><th>entity</th><th>key</th><th>type</th><th>changes</th></tr></thead>\n<tbody>\n")
            }
            if current?.number != transaction.number { flush() }
            current = transaction
            tree.add(change, transaction)
        }
        flush()
        if total == 0 {
            output.write("<p class=\"empty\">No changes</p>\n</section>\n")
            return
        }
        output.write("</tbody>\n</table></div>\n")
        let counts = "\(HTMLEscaping.grouped(byType[.insert] ?? 0)) inserts, \(HTMLEscaping.grouped(byType[.update] ?? 0)) updates, \(HTMLEscaping.grouped(byType[.delete] ?? 0)) deletes"
        if total > changeLimit {
            let rest = total - changeLimit
            output.write("<p class=\"note\" id=\"changes-not-shown\">The first \(HTMLEscaping.grouped(changeLimit)) of <data value=\"\(total)\">\(HTMLEscaping.grouped(total))</data> changes (\(counts)) are shown: <strong><data value=\"\(rest)\">\(HTMLEscaping.grouped(rest))</data> more change\(rest == 1 ? "" : "s") not shown</strong>. The CSV, JSON or NDJSON report lists them all.</p>\n")
        } else {
            output.write("<p class=\"note\">All <data value=\"\(total)\">\(HTMLEscaping.grouped(total))</data> change\(total == 1 ? "" : "s") (\(counts)).</p>\n")
        }
        output.write("</section>\n")
    }

    /// One row of the changes table: a change, or a parent without a change of its own; a child's
    /// entity indented and marked `↳`.
    private func writeChangeRow(_ record: ChangeTree<HistoryTransaction>.Visit, transaction: HistoryTransaction?, to output: OutputSink) {
        let e = HTMLEscaping.escape
        let entity = record.depth == 0 ? e(record.entity) : "<span class=\"child\"\(record.depth > 1 ? " style=\"padding-left: \(record.depth - 1)em\"" : "")>↳ \(e(record.entity))</span>"
        let number = transaction.map { "<td class=\"num\" title=\"token \(e($0.token))\">\($0.number)</td>" } ?? "<td></td>"
        guard let (change, transaction) = record.entry else {
            return output.write("<tr class=\"parent\">\(number)<td>\(entity)</td><td class=\"key\">\(e(record.ownKey))</td><td class=\"muted\">no change</td><td></td></tr>\n")
        }
        let key = change.key.count == 1 ? displayText(change.key[0].1) : change.key.map { "\(e($0.0))=\(displayText($0.1))" }.joined(separator: ", ")
        output.write("<tr class=\"\(change.type.rawValue)\"><td class=\"num\" title=\"token \(e(transaction.token))\">\(transaction.number)</td><td>\(entity)</td><td class=\"key\">\(key)</td><td><span class=\"badge \(change.type.rawValue)\">\(change.isRekey ? "update, re-keyed" : change.type.rawValue)</span></td><td>")
        output.write(changeCell(change))
        output.write("</td></tr>\n")
    }

    /// `3`, `2–5` or `none`: the transactions a view effect covers.
    static func transactionRange(_ effect: ViewEffect) -> String {
        if effect.fromTransaction >= effect.throughTransaction { return "none" }
        if effect.fromTransaction + 1 == effect.throughTransaction { return "\(effect.throughTransaction)" }
        return "\(effect.fromTransaction + 1)–\(effect.throughTransaction)"
    }

    // MARK: Cells

    /// Updates: each changed attribute with `<del>old</del> → <ins>new</ins>`; inserts: the
    /// non-null values besides the key; deletes: the tombstone besides the key, struck out.
    func changeCell(_ change: Change) -> String {
        let e = HTMLEscaping.escape
        switch change.type {
        case .update:
            return change.changed.map {
                "<span class=\"change\"><span class=\"attr\">\(e($0.attribute))</span> <del>\(displayValue($0.old))</del><span class=\"arrow\">→</span><ins>\(displayValue($0.new))</ins></span>"
            }.joined()
        case .insert:
            let pairs = change.listedValues(includingKey: false)
            return "<span class=\"pairs\">" + pairs.map { "<span><span class=\"attr\">\(e($0.0))</span> <ins>\(displayValue($0.1))</ins></span>" }.joined() + "</span>"
        case .delete:
            let pairs = change.listedValues(includingKey: false)
            return "<span class=\"pairs\">" + pairs.map { "<span><span class=\"attr\">\(e($0.0))</span> <del>\(displayValue($0.1))</del></span>" }.joined() + "</span>"
        }
    }

    /// An aggregate as people read it: sums carry the rounding of floating-point addition, so
    /// reals show 12 significant digits (`766.7`, not `766.6999999999999`).
    func aggregateValue(_ value: Value) -> String {
        guard case .real(let x) = value, x.isFinite else { return displayValue(value) }
        return HTMLEscaping.escape(HTMLChart.rounded(x))
    }

    /// A value as escaped HTML: null and empty text marked as such, long text shortened.
    func displayValue(_ value: Value) -> String {
        switch value {
        case .null: "<span class=\"null\">null</span>"
        case .text(let text) where text.isEmpty: "<span class=\"null\">\"\"</span>"
        default: displayText(value)
        }
    }

    func displayText(_ value: Value) -> String {
        HTMLEscaping.escape(truncated(value.description))
    }

    func truncated(_ text: String) -> String {
        guard text.count > valueLimit else { return text }
        return String(text.prefix(valueLimit)) + "… (\(text.count) characters)"
    }
}

enum HTMLEscaping {
    /// `text` with `& < > " '` replaced by character references (safe in text and attributes).
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 < 0x20 }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n", "\t": result.unicodeScalars.append(scalar)
            default:
                // Control characters are not allowed in HTML text: show them as U+2400 pictures.
                if scalar.value < 0x20, let picture = Unicode.Scalar(0x2400 + scalar.value) {
                    result.unicodeScalars.append(picture)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }
}
