import ArgumentParser
import Foundation
import ImporterKit
import Logging

/// `--quiet`, `--verbose` and `--log-format`: logs go to standard error, one line per event.
struct LoggingOptions: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Flag(name: [.short, .long], help: "Log errors only (no progress).")
    var quiet = false

    @Flag(name: [.short, .long], help: "Log what each step does.")
    var verbose = false

    @Option(name: .customLong("log-format"), help: "Log lines as text or json (one object per line, for log shippers).")
    var logFormat: Format = .text

    var level: Logger.Level { quiet ? .error : verbose ? .debug : .notice }

    /// A logger writing to standard error (created per command: no global logging state).
    func makeLogger() -> Logger {
        let format = logFormat
        let level = level
        return Logger(label: "importer") { label in StandardErrorLogHandler(label: label, format: format, logLevel: level) }
    }
}

/// One line per event on standard error: `importer: warning: message key=value` or a JSON object
/// `{"time", "level", "label", "message", ...metadata}`.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    let format: LoggingOptions.Format
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, format: LoggingOptions.Format, logLevel: Logger.Level) {
        self.label = label
        self.format = format
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        var line: String
        switch format {
        case .text:
            line = "importer: \(event.level == .notice || event.level == .info ? "" : "\(event.level): ")\(event.message)"
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        case .json:
            let sink = OutputSink.memory()
            var json = JSONWriter(output: sink)
            json.beginObject()
            json.field("time", Timestamp.now())
            json.field("level", event.level.rawValue)
            json.field("label", label)
            json.field("message", "\(event.message)")
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) { json.field(key, "\(value)") }
            json.endObject()
            line = sink.text
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Progress of an import on standard error, only when it is a terminal: while reading, records,
/// records/s, bytes read of the file's size and the time left (redrawn at most 5 times a second);
/// after reading, each phase as it begins (sync, history, views, commit) with the time so far.
/// Nothing is drawn once `finish()` cleared the line.
final class ProgressLine {
    private var last = Date.distantPast
    private let started = Date()
    private var drawn = false
    private var finished = false
    private var records = 0

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    func update(_ progress: ImportProgress) {
        let now = Date()
        records = progress.records
        guard !finished, now.timeIntervalSince(last) >= 0.2 else { return }
        last = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(progress.records) / elapsed
        var text = "\(progress.source): \(progress.records) records, \(Int(rate)) records/s"
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytesRead) / Double(total))
            let remaining = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            text += String(format: ", %.1f of %.1f MB (%.0f%%), ETA %.0fs", Double(progress.bytesRead) / 1e6, Double(total) / 1e6, fraction * 100, remaining)
        } else {
            text += String(format: ", %.1f MB read", Double(progress.bytesRead) / 1e6)
        }
        draw(text)
    }

    /// The step after reading that begins now: `12000 records read; writing history (4.2 s)`.
    func phase(_ phase: ImportPhase) {
        guard !finished else { return }
        let index = (ImportPhase.allCases.firstIndex(of: phase) ?? 0) + 1
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        draw("\(records) records read; step \(index) of \(ImportPhase.allCases.count): \(phase.activity) (\(seconds) s)")
    }

    private func draw(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        drawn = true
    }

    func finish() {
        if drawn && !finished { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        finished = true
    }
}
