import Foundation
import Glibc

/// Temporary files that never keep a name: open for reading and writing, close-on-exec, their
/// space freed when the descriptor closes, however the process ends.
///
/// `O_TMPFILE` where the filesystem has it; elsewhere `mkstemp` then `unlink` at once, so the name
/// exists for an instant (`removeStale` clears one a kill left in that instant).
public enum UnnamedFile {
    /// Why a file could not be created: `strerror` of the failure.
    public struct Failure: Error, Sendable {
        public var reason: String
    }

    /// A new unnamed file in `directory`; `prefix` names it for the instant it has a name.
    public static func create(in directory: String, prefix: String) throws(Failure) -> Int32 {
        var descriptor = open(directory, temporaryFileFlags | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            removeStale(in: directory, prefix: prefix)
            var template = Array((directory as NSString).appendingPathComponent(prefix + "-XXXXXX").utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
            if descriptor >= 0 {
                template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
        }
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// Reads up to `buffer.count` bytes at `offset` of `descriptor`, retried across interruptions
    /// and partial reads; returns how many were read (fewer only at the end of the file).
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Failure) -> Int {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw Failure(reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Writes all of `bytes` at `offset` of `descriptor`, retried across interruptions and partial
    /// writes.
    public static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw Failure(reason: String(cString: strerror(errno))) }
            if count == 0 { throw Failure(reason: "nothing could be written") }
            done += count
        }
    }

    /// Removes files named `prefix-…` in `directory` more than `age` seconds ago: left by a
    /// process killed in the instant its file had a name (a live one is unlinked within
    /// microseconds of its naming).
    public static func removeStale(in directory: String, prefix: String, olderThan age: TimeInterval = 60) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in files where name.hasPrefix(prefix + "-") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  Date().timeIntervalSince(modified) > age else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY` on Linux), which Glibc's module does not export.
    private static let temporaryFileFlags: Int32 = 0o20_000_000 | O_DIRECTORY
}
