import Foundation
import ImporterModel
import ImporterSupport

/// Where rejected records go as an import runs: the store (`importer_reject`, tagged with the run)
/// and, optionally, an NDJSON file (written as they come, so it is complete even when the run
/// fails for too many rejects).
public final class RejectSink {
    private let file: OutputSink?
    private var descriptor: Int32 = -1

    /// `path`: the `--rejects` file (created or truncated), or nil.
    public init(path: String?) throws {
        guard let path else {
            file = nil
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        file = OutputSink(descriptor: descriptor)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func write(_ reject: Reject) {
        guard let file else { return }
        var json = JSONWriter(output: file)
        json.writeReject(reject)
        file.write("\n")
    }

    public func finish() throws {
        try file?.flush()
    }
}
