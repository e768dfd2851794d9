import Foundation
import ImporterModel
import ImporterSupport

/// Where rejected records go as an import runs: the store (`importer_reject`, tagged with the run)
/// and, optionally, an NDJSON file (written as they come, so it is complete even when the run
/// fails for too many rejects).
public final class RejectSink {
    private let file: OutputSink?
    private var descriptor: Int32 = -1
    /// Rejects written since the file was opened or restarted.
    private var written = 0
    /// Rejects still to leave out: those a rolled-back attempt of the run already wrote into a
    /// file that cannot be truncated (a pipe), which the next attempt meets again in the same order.
    private var skipping = 0
    /// Whether the output is a regular file, which `restart` can empty.
    private var isRegularFile = false
    /// Set while an attempt that will be read again goes on (`RunRejects.scouting`): a regular
    /// file still gets every reject (complete if the run fails for too many), any other output none.
    var scouting = false

    /// `path`: the `--rejects` file (created or truncated), or nil.
    public init(path: String?) throws {
        guard let path else {
            file = nil
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        file = OutputSink(descriptor: descriptor)
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func write(_ reject: Reject) {
        guard let file, !scouting || isRegularFile else { return }
        written += 1
        if skipping > 0 {
            skipping -= 1
            return
        }
        var json = JSONWriter(output: file)
        json.writeReject(reject)
        file.write("\n")
    }

    /// Before a run reads its feeds again (`RejectedChildren`): a regular file is emptied, so it
    /// ends holding the last attempt's rejects; any other output leaves out as many rejects as it
    /// already holds.
    func restart() {
        scouting = false
        guard let file else { return }
        try? file.flush()
        if isRegularFile, ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 {
            written = 0
        } else {
            (skipping, written) = (written, 0)
        }
    }

    public func finish() throws {
        try file?.flush()
    }
}
