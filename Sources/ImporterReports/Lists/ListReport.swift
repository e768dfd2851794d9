import ImporterSupport

/// The output of listing and confirming commands: for people, or for programs.
public enum ListFormat: String, CaseIterable, Sendable {
    case text, json
}

/// A command's output that has a text and a JSON rendering (`ListFormat`).
public protocol ListReport {
    /// Lines for people, each ending in a newline.
    func renderText(to output: OutputSink)
    /// One JSON document and its newline.
    func renderJSON(to output: OutputSink)
}

extension ListReport {
    public func render(as format: ListFormat, to output: OutputSink) {
        switch format {
        case .text: renderText(to: output)
        case .json: renderJSON(to: output)
        }
    }
}
