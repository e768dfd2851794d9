import ImporterModel
import ImporterPipeline
import ImporterStore
import ImporterSupport

/// The JSON report of a run that failed before it had a result to report (a parse error, a reject
/// over the limit, a refused fetch, a busy store): the members of the run report, empty, with the
/// run's rejects (when it failed on them), the error in `errors` and the exit code, so that a
/// program reading `run --format json` always gets one document.
public enum FailedRunReport {
    public static func renderJSON(message: String, exitCode: Int32, rejects: [Reject], dryRun: Bool, to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.key("transaction")
            json.null()
            json.field("dry_run", dryRun)
            json.key("totals")
            json.writeCounts(ChangeCounts())
            json.key("entities")
            json.beginObject()
            json.endObject()
            json.key("changes")
            json.beginArray()
            json.endArray()
            json.key("views")
            json.beginObject()
            json.endObject()
            json.key("rejects")
            json.beginArray()
            for reject in rejects { json.writeReject(reject) }
            json.endArray()
            json.field("warnings", strings: [])
            json.field("errors", strings: [message])
            json.field("exit_code", Int(exitCode))
            json.endObject()
        }
    }
}
