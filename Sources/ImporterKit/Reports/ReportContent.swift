/// Everything a report shows, read from the history tables: one run (its transaction, or none when
/// nothing changed) or a range of transactions (`history`, `report`, a consumer's pending changes).
///
/// Reports never use the in-memory state of a run, so a report of an old range is the same as the
/// one printed at the time.
public struct ReportContent {
    public enum Kind {
        case run(RunReport)
        case range
    }

    public var kind: Kind
    public var title: String
    public var storePath: String
    /// The transactions shown, oldest first (authors excluded by the filter left out).
    public var transactions: [HistoryTransaction]
    public var totals: ChangeCounts
    public var entities: [(String, ChangeCounts)]
    public var views: [ViewEffect]
    public var rejects: [Reject]
    public var warnings: [String]
    public var filter: ChangeFilter
    /// The range `after < number <= through`.
    public var after: Int64
    public var through: Int64

    /// The report of an import run.
    public init(run report: RunReport, storePath: String) {
        kind = .run(report)
        title = report.transaction.map { "importer run: transaction \($0.number)" } ?? "importer run: no changes"
        self.storePath = storePath
        transactions = report.transaction.map { [$0] } ?? []
        totals = report.totals
        entities = report.entities
        views = report.views
        rejects = report.rejects
        warnings = report.warnings
        filter = .all
        after = (report.transaction?.number ?? 1) - 1
        through = report.transaction?.number ?? 0
    }

    /// The report of the transactions `after < number <= through`, through `filter`.
    public init(store: Store, after: Int64, through: Int64, filter: ChangeFilter = .all, title: String? = nil) throws {
        kind = .range
        storePath = store.path
        transactions = try HistoryReader(store: store).transactions(after: after, through: through).filter { filter.includes(author: $0.author) }
        totals = transactions.reduce(ChangeCounts()) { $0 + $1.totals }
        var perEntity: [String: ChangeCounts] = [:]
        for transaction in transactions {
            for (name, counts) in transaction.entities where filter.includes(entity: name) {
                perEntity[name, default: ChangeCounts()] = perEntity[name, default: ChangeCounts()] + counts
            }
        }
        entities = perEntity.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        views = []
        rejects = []
        warnings = []
        self.filter = filter
        self.after = after
        self.through = through
        self.title = title ?? (transactions.isEmpty ? "importer history: no transactions"
            : "importer history: transactions \(transactions.first?.number ?? 0)–\(transactions.last?.number ?? 0)")
    }

    /// Streams the changes the report shows, each with its transaction.
    public func forEachChange(in store: Store, _ body: (Change, HistoryTransaction) throws -> Void) throws {
        try HistoryReader(store: store).forEachChange(in: transactions, filter: filter, body)
    }
}

/// Writes a report in any format: the run and history contracts for text, JSON and NDJSON;
/// Markdown, CSV and HTML from the same content.
public struct ReportWriter {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func write(_ content: ReportContent, as format: ReportFormat, to output: OutputSink) throws {
        switch (format, content.kind) {
        case (.text, .run(let report)), (.json, .run(let report)), (.ndjson, .run(let report)):
            try RunReportRenderer(store: store).render(report, as: format, to: output)
        case (.text, .range), (.json, .range), (.ndjson, .range):
            try HistoryRenderer(store: store).render(after: content.after, through: content.through, filter: content.filter, as: format, to: output)
        case (.markdown, _):
            try MarkdownReportRenderer(store: store).render(content, to: output)
        case (.csv, _):
            try CSVReportRenderer(store: store).render(content, to: output)
        case (.html, _):
            try HTMLReportRenderer(store: store).render(content, to: output)
        }
    }
}
