import Foundation
import ImporterStore
import ImporterSupport

/// Writes a report in any format: the run and history contracts for text, JSON and NDJSON;
/// Markdown, CSV and HTML from the same content, read from `snapshot` (the caller's transaction).
public struct ReportWriter {
    public let store: Store
    public let snapshot: StoreSnapshot

    public init(store: Store, snapshot: StoreSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    public func write(_ content: ReportContent, as format: ReportFormat, to output: OutputSink) throws {
        switch (format, content.kind) {
        case (.text, .run): try RunReportRenderer(snapshot: snapshot).renderText(content, to: output)
        case (.json, .run): try RunReportRenderer(snapshot: snapshot).renderJSON(content, to: output)
        case (.ndjson, .run): try RunReportRenderer(snapshot: snapshot).renderNDJSON(content, to: output)
        case (.text, .range): try HistoryRenderer(store: store, snapshot: snapshot).renderText(content, to: output)
        case (.json, .range): try HistoryRenderer(store: store, snapshot: snapshot).renderJSON(content, to: output)
        case (.ndjson, .range): try HistoryRenderer(store: store, snapshot: snapshot).renderNDJSON(content, to: output)
        case (.markdown, _): try MarkdownReportRenderer(store: store, snapshot: snapshot).render(content, to: output)
        case (.csv, _): try CSVReportRenderer(snapshot: snapshot).render(content, to: output)
        case (.html, _): try HTMLReportRenderer(store: store, snapshot: snapshot).render(content, to: output)
        }
    }
}
