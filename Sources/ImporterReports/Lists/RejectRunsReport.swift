import ImporterModel
import ImporterStore
import ImporterSupport

/// `importer rejects list`: the runs that kept rejects, with their counts and sources.
public struct RejectRunsReport: ListReport {
    public var runs: [RejectRunSummary]

    public init(_ runs: [RejectRunSummary]) {
        self.runs = runs
    }

    public func renderText(to output: OutputSink) {
        if runs.isEmpty { output.write("No rejects.\n") }
        for run in runs {
            output.write("run \(run.run) at \(run.createdAt): \(run.count) reject(s) in \(run.sources.joined(separator: ", "))\(run.transactionNumber.map { ", transaction \($0)" } ?? "")\n")
        }
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginArray()
            for run in runs {
                json.beginObject()
                json.field("run", run.run)
                json.field("transaction", run.transactionNumber.map(Value.integer) ?? .null)
                json.field("created_at", run.createdAt)
                json.field("rejects", run.count)
                json.field("sources", strings: run.sources)
                json.endObject()
            }
            json.endArray()
        }
    }
}
