import ImporterModel
import ImporterPipeline
import ImporterSupport

/// `importer check`, streamed as the feeds are read: each reject as it is met, then each feed's
/// summary (records, supplied attributes, field statistics, warnings), then the store the model was
/// checked against. Calls go `reject`* `feed` per feed, then `finish` once.
public struct FeedCheckReport {
    public let format: ListFormat
    private let output: OutputSink
    private var json: JSONWriter
    private var feedOpen = false

    /// Starts the report (the JSON document's opening).
    public init(format: ListFormat, output: OutputSink) {
        self.format = format
        self.output = output
        json = JSONWriter(output: output)
        if format == .json { json.beginObject(); json.key("feeds"); json.beginArray() }
    }

    public mutating func reject(_ reject: Reject) {
        guard format == .json else { output.write("rejected: \(reject)\n"); return }
        openFeed()
        json.writeReject(reject)
    }

    private mutating func openFeed() {
        guard !feedOpen else { return }
        json.beginObject()
        json.key("rejects")
        json.beginArray()
        feedOpen = true
    }

    public mutating func feed(_ check: FeedCheck) {
        guard format == .json else { writeText(check); return }
        openFeed()
        feedOpen = false
        json.endArray()
        json.field("source", check.source)
        json.field("mapping", check.feed)
        json.field("format", check.format.rawValue)
        if let dialect = check.dialect { json.field("dialect", dialect) }
        json.field("entity", check.entity)
        json.field("records", check.records)
        json.field("mapped", check.mapped)
        json.field("rejected", check.rejected)
        json.field("supplies", strings: check.supplied)
        json.key("fields")
        json.beginArray()
        for field in check.fields {
            json.beginObject()
            json.field("field", field.field)
            json.field("attributes", strings: field.attributes)
            json.field("present", field.present)
            json.field("null", field.null)
            json.field("repeated", field.repeated)
            json.field("rejected", field.rejected)
            json.endObject()
        }
        json.endArray()
        json.field("warnings", strings: check.warnings)
        json.endObject()
    }

    private func writeText(_ check: FeedCheck) {
        output.write("\(check.source): \(check.records) record(s) of \(check.entity) (mapping \(check.feed), \(check.format.rawValue)): \(check.mapped) would be imported, \(check.rejected) rejected\n")
        if let dialect = check.dialect { output.write("  read with: \(dialect)\n") }
        output.write("  supplies: \(check.supplied.joined(separator: ", "))\n")
        for field in check.fields {
            var line = "  field \(field.field): present in \(field.present), null in \(field.null)"
            if field.repeated > 0 { line += ", repeated in \(field.repeated)" }
            line += ", rejected in \(field.rejected) of \(check.records) record(s)"
            output.write(line + "\n")
        }
        for warning in check.warnings { output.write("  warning: \(warning)\n") }
    }

    /// Ends the report with the store at `path` (when one was checked) and the total of rejects.
    public mutating func finish(store state: StoreModelCheck?, at path: String?, rejected: Int) {
        guard format == .json else { writeText(store: state, at: path); return }
        json.endArray()
        json.field("rejected", rejected)
        json.key("store")
        if let state, let path {
            json.beginObject()
            json.field("path", path)
            json.field("exists", { if case .absent = state { false } else { true } }())
            json.field("accepts_model", true)
            json.key("records")
            json.beginObject()
            if case .held(let held) = state { for (name, count) in held { json.field(name, count) } }
            json.endObject()
            json.endObject()
        } else {
            json.null()
        }
        json.endObject()
        output.write("\n")
    }

    private func writeText(store state: StoreModelCheck?, at path: String?) {
        switch (state, path) {
        case (.held(let held)?, let path?):
            output.write("store \(path): accepts the model (\(held.map { "\($0.entity): \($0.records) records held" }.joined(separator: ", ")))\n")
        case (.absent?, let path?):
            output.write("store \(path): does not exist yet; checked as empty (the first run creates it)\n")
        default: break
        }
    }
}
