import CSQLite
import Foundation
import Glibc
import ImporterModel

/// Who holds a store's write lock, kept in a small file beside it (`STORE-writer`) so that a
/// process that finds the store busy can say which command and process to wait for.
///
/// SQLite's lock itself stays the only arbiter: the record is written by a writer once it holds the
/// lock, read only by a process that found the store busy, and believed only while its process is
/// alive on this host. Failing to write it never fails a write.
struct WriterRecord: Equatable {
    var pid: Int32
    var host: String
    var command: String
    var since: String

    static func path(forStore store: String) -> String { store + "-writer" }

    /// The record of this process, running `command`.
    static func current(command: String) -> WriterRecord {
        WriterRecord(pid: ProcessInfo.processInfo.processIdentifier, host: ProcessInfo.processInfo.hostName, command: command, since: Timestamp.now())
    }

    var text: String { "pid=\(pid)\nhost=\(host)\ncommand=\(command)\nsince=\(since)\n" }

    init(pid: Int32, host: String, command: String, since: String) {
        self.pid = pid
        self.host = host
        self.command = command
        self.since = since
    }

    init?(text: String) {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let pidText = fields["pid"], let pid = Int32(pidText), let host = fields["host"] else { return nil }
        self.init(pid: pid, host: host, command: fields["command"] ?? "?", since: fields["since"] ?? "?")
    }

    /// Writes the record (best effort).
    func write(forStore store: String) {
        let descriptor = open(Self.path(forStore: store), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var bytes = Array(text.utf8)
        _ = Glibc.write(descriptor, &bytes, bytes.count)
    }

    /// The holder recorded beside `store`, when that process is alive on this host.
    static func liveHolder(ofStore store: String) -> WriterRecord? {
        guard let text = try? String(contentsOfFile: path(forStore: store), encoding: .utf8),
              let record = WriterRecord(text: text),
              record.host == ProcessInfo.processInfo.hostName,
              record.pid != ProcessInfo.processInfo.processIdentifier,
              kill(record.pid, 0) == 0 || errno == EPERM else { return nil }
        return record
    }
}
