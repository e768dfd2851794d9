import Foundation
import ImporterStore
import ImporterSupport

/// Writes a report in any format: the run and history contracts for text, JSON and NDJSON;
/// Markdown, CSV and HTML from the same content.
public struct ReportWriter {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func write(_ content: ReportContent, as format: ReportFormat, to output: OutputSink) throws {
        switch (format, content.kind) {
        case (.text, .run): try RunReportRenderer(store: store).renderText(content, to: output)
        case (.json, .run): try RunReportRenderer(store: store).renderJSON(content, to: output)
        case (.ndjson, .run): try RunReportRenderer(store: store).renderNDJSON(content, to: output)
        case (.text, .range): try HistoryRenderer(store: store).renderText(content, to: output)
        case (.json, .range): try HistoryRenderer(store: store).renderJSON(content, to: output)
        case (.ndjson, .range): try HistoryRenderer(store: store).renderNDJSON(content, to: output)
        case (.markdown, _): try MarkdownReportRenderer(store: store).render(content, to: output)
        case (.csv, _): try CSVReportRenderer(store: store).render(content, to: output)
        case (.html, _): try HTMLReportRenderer(store: store).render(content, to: output)
        }
    }
}
