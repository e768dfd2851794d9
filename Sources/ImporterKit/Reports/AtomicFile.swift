import Foundation

/// A file written in full or not at all: written to a temporary file beside the target, then
/// renamed over it (`commit`), so a reader never sees half a report and a failed run leaves the
/// previous file in place.
public final class AtomicFile {
    public let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    /// The sink to write the content into.
    public let sink: OutputSink

    public init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        sink = OutputSink(descriptor: descriptor)
    }

    deinit { abandon() }

    /// Flushes, syncs and renames the file into place.
    public func commit() throws {
        guard descriptor >= 0 else { return }
        try sink.flush()
        guard fsync(descriptor) == 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        close(descriptor)
        descriptor = -1
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw OutputError.writeFailed("\(path): \(reason)")
        }
    }

    /// Removes the temporary file (the target is left as it was).
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }
}

/// Where reports go: each `--report FORMAT` with its `--output FILE` (standard output when it has
/// none; at most one may). Files are written atomically; standard output is streamed (a report of
/// a million changes never sits in memory), so callers write reports once the data is final.
public struct ReportTargets: Sendable {
    public struct Target: Sendable {
        public var format: ReportFormat
        public var path: String?
    }

    public let targets: [Target]

    /// Pairs formats with paths in order; throws a usage problem when they do not fit.
    public init(formats: [ReportFormat], outputs: [String]) throws(ReportTargetsError) {
        guard outputs.count <= max(formats.count, 1) else {
            throw ReportTargetsError("more --output than --report options: give a --report FORMAT for each --output FILE")
        }
        let formats = formats.isEmpty ? [.text] : formats
        var targets: [Target] = []
        for (index, format) in formats.enumerated() {
            targets.append(Target(format: format, path: index < outputs.count ? outputs[index] : nil))
        }
        guard targets.filter({ $0.path == nil }).count <= 1 else {
            throw ReportTargetsError("only one report can go to standard output: give an --output FILE to the others")
        }
        self.targets = targets
    }

    /// Writes every report: files in full or not at all, standard output as it is rendered.
    public func write(_ content: ReportContent, store: Store) throws {
        let writer = ReportWriter(store: store)
        for target in targets {
            if let path = target.path {
                let file = try AtomicFile(path: path)
                try writer.write(content, as: target.format, to: file.sink)
                try file.commit()
            } else {
                let output = OutputSink()
                try writer.write(content, as: target.format, to: output)
                try output.flush()
            }
        }
    }
}

public struct ReportTargetsError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
