import ImporterModel
import ImporterSupport

/// `importer rejects show`: one run's rejects (location, attribute, reason, raw value).
public struct RejectsReport {
    /// For people, one JSON object, or one JSON object per reject.
    public enum Format: String, CaseIterable, Sendable {
        case text, json, ndjson
    }

    /// The run, or nil when no run kept rejects.
    public var run: Int64?
    public var rejects: [Reject]

    public init(run: Int64?, rejects: [Reject]) {
        self.run = run
        self.rejects = rejects
    }

    public func render(as format: Format, to output: OutputSink) {
        switch format {
        case .text:
            if run == nil { output.write("No rejects.\n") }
            for reject in rejects { output.write("\(reject)\n") }
        case .json:
            JSONWriter.document(to: output) { json in
                json.beginObject()
                json.field("run", run.map(Value.integer) ?? .null)
                json.key("rejects")
                json.beginArray()
                for reject in rejects { json.writeReject(reject) }
                json.endArray()
                json.endObject()
            }
        case .ndjson:
            for reject in rejects { JSONWriter.document(to: output) { $0.writeReject(reject) } }
        }
    }
}
