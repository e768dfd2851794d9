import ImporterReports
import ImporterSupport

/// A node_exporter textfile: written in full or not at all, so that the collector never reads half
/// of one. The content goes to a temporary file in the same directory (a dot file that does not
/// end in `.prom`, which the collector skips), is fsynced and renamed over the target, and the
/// directory is fsynced (`OutputFile`); a failed write leaves the previous file as it was. A
/// device (`/dev/stdout`) is written into.
package enum Textfile {
    /// Replaces the file at `path` with `families` in the text exposition format.
    package static func write(_ families: [MetricFamily], to path: String) throws(MetricsFileError) {
        let bytes = TextExposition.render(families)
        do {
            let file = try OutputFile(path: path)
            bytes.withUnsafeBufferPointer { file.sink.writeBytes($0) }
            try file.commit()
        } catch OutputError.writeFailed(let reason) {
            throw MetricsFileError.cannotWrite(path: path, reason: reason.hasPrefix(path + ": ") ? String(reason.dropFirst(path.count + 2)) : reason)
        } catch {
            throw MetricsFileError.cannotWrite(path: path, reason: "\(error)")
        }
    }
}
