import ImporterSupport

/// What a command that changes something did: a sentence for people, or the members `fill`
/// writes as one JSON object.
public struct Confirmation: ListReport {
    public var text: String
    public var fill: (inout JSONWriter) -> Void

    public init(_ text: String, _ fill: @escaping (inout JSONWriter) -> Void) {
        self.text = text
        self.fill = fill
    }

    public func renderText(to output: OutputSink) {
        output.write(text + "\n")
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            fill(&json)
            json.endObject()
        }
    }
}
