import Foundation
import ImporterStore
import ImporterSupport

/// Where one report goes, written in full or not at all where the destination allows it:
/// - `-`: standard output, streamed;
/// - a regular file (or a path that does not exist yet): a temporary file in the same directory,
///   fsynced, then renamed over the target (and the directory fsynced), so a reader never sees half
///   a report and a failed run leaves the previous file in place;
/// - a symbolic link: the file it points to is replaced as above; the link stays a link;
/// - anything else (a device such as `/dev/null`, a FIFO, a socket): written into, never renamed
///   over, so the node stays what it is.
public final class OutputFile {
    /// The path as given.
    public let path: String
    /// The sink to write the content into.
    public let sink: OutputSink
    private let mode: Mode
    private var descriptor: Int32

    private enum Mode {
        case standardOutput
        case direct
        case atomic(target: String, temporary: String)
    }

    public init(path: String) throws {
        self.path = path
        if path == "-" {
            mode = .standardOutput
            descriptor = -1
            sink = OutputSink()
            return
        }
        let target = try Self.resolvingLinks(path)
        var info = stat()
        if stat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            descriptor = open(target, O_WRONLY | O_CLOEXEC)
            mode = .direct
        } else {
            let url = URL(fileURLWithPath: target)
            let temporary = url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp").path
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            mode = .atomic(target: target, temporary: temporary)
        }
        guard descriptor >= 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        sink = OutputSink(descriptor: descriptor)
    }

    deinit { abandon() }

    /// The file a chain of symbolic links ends at (the path itself when it is not a link); a
    /// dangling link resolves to the file it names, which is then created.
    static func resolvingLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = destination.hasPrefix("/") ? destination
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        throw OutputError.writeFailed("\(path): too many levels of symbolic links")
    }

    /// Flushes the content; for a regular file, syncs it and renames it into place.
    public func commit() throws {
        switch mode {
        case .standardOutput:
            try sink.flush()
        case .direct:
            guard descriptor >= 0 else { return }
            defer { close(descriptor); descriptor = -1 }
            try sink.flush()
        case .atomic(let target, let temporary):
            guard descriptor >= 0 else { return }
            try sink.flush()
            guard fsync(descriptor) == 0 else { throw OutputError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
            close(descriptor)
            descriptor = -1
            guard rename(temporary, target) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw OutputError.writeFailed("\(path): \(reason)")
            }
            Self.syncDirectory(of: target)
        }
    }

    /// Makes the rename durable: fsync of the containing directory (best effort).
    private static func syncDirectory(of path: String) {
        let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }

    /// Drops what was written to a temporary file (the target is left as it was).
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        if case .atomic(_, let temporary) = mode { unlink(temporary) }
    }
}

/// Where reports go: each `--report FORMAT` with its `--output FILE` (standard output when it has
/// none, or `-`; at most one may). An `--output` without its `--report` takes the format from its
/// extension. Standard output is streamed (a report of a million changes never sits in memory),
/// so callers write reports once the data is final.
public struct ReportTargets: Sendable {
    public struct Target: Sendable {
        public var format: ReportFormat
        /// nil: standard output.
        public var path: String?
    }

    public let targets: [Target]

    /// Pairs formats with paths in order; throws a usage problem when they do not fit.
    public init(formats: [ReportFormat], outputs: [String]) throws(ReportTargetsError) {
        var targets: [Target] = []
        for index in 0..<max(formats.count, outputs.count, 1) {
            let path = index < outputs.count ? outputs[index] : nil
            let format: ReportFormat
            if index < formats.count {
                format = formats[index]
            } else if let path, path != "-" {
                guard let inferred = ReportFormat(fileExtensionOf: path) else {
                    throw ReportTargetsError.formatNotInferred(path: path, known: ReportFormat.allCases.map(\.rawValue))
                }
                format = inferred
            } else if path == "-" {
                throw ReportTargetsError.standardOutputWithoutFormat
            } else {
                format = .text
            }
            targets.append(Target(format: format, path: path == "-" ? nil : path))
        }
        guard targets.filter({ $0.path == nil }).count <= 1 else {
            throw ReportTargetsError.severalOnStandardOutput
        }
        self.targets = targets
    }

    /// These targets and `format` on standard output (`--format`): fails when one of them
    /// already goes there.
    public func addingStandardOutput(_ format: ReportFormat) throws(ReportTargetsError) -> ReportTargets {
        if let other = targets.first(where: { $0.path == nil }) {
            throw ReportTargetsError.standardOutputTaken(format: format, other: other.format)
        }
        return ReportTargets(checked: targets + [Target(format: format, path: nil)])
    }

    private init(checked targets: [Target]) {
        self.targets = targets
    }

    /// Writes every report, reading `snapshot` of `store`: files in full or not at all, standard
    /// output as it is rendered.
    public func write(_ content: ReportContent, store: Store, in snapshot: StoreSnapshot) throws {
        try open().write(content, store: store, in: snapshot)
    }

    /// Opens every destination now (a file that cannot be written fails before any work is
    /// done), to be written once the content is final.
    public func open() throws -> OpenReportTargets {
        OpenReportTargets(files: try targets.map { (try OutputFile(path: $0.path ?? "-"), $0.format) })
    }
}

/// Report destinations opened ahead of the work they report on; abandoned (temporary files
/// removed, targets untouched) when never written.
public final class OpenReportTargets {
    private let files: [(file: OutputFile, format: ReportFormat)]

    init(files: [(OutputFile, ReportFormat)]) {
        self.files = files
    }

    /// Writes and commits every report, reading `snapshot` of `store`.
    public func write(_ content: ReportContent, store: Store, in snapshot: StoreSnapshot) throws {
        let writer = ReportWriter(store: store, snapshot: snapshot)
        for (file, format) in files {
            try writer.write(content, as: format, to: file.sink)
            try file.commit()
        }
    }
}

extension ReportFormat {
    /// The format a file name's extension names (`.json`, `.ndjson`/`.jsonl`, `.md`/`.markdown`,
    /// `.csv`, `.html`/`.htm`, `.txt`/`.text`), or nil.
    public init?(fileExtensionOf path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "json": self = .json
        case "ndjson", "jsonl": self = .ndjson
        case "md", "markdown": self = .markdown
        case "csv": self = .csv
        case "html", "htm": self = .html
        case "txt", "text": self = .text
        default: return nil
        }
    }
}

