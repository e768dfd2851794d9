import Foundation
import Glibc

/// An unnamed temporary file that a feed's sorted runs are spilled to.
///
/// Invariant: the file never has a name once `init` returns (`O_TMPFILE`, or created and unlinked
/// at once where the filesystem lacks it), so nothing is left behind however the process ends,
/// `kill -9` included: its space is freed when the descriptor closes. Should a process be killed
/// in the instant a fallback file has a name, the next spill in that directory removes it. Writes are buffered; a
/// failed write (a full disk) is `ImportError.spill`.
final class SpillFile {
    let directory: String
    private let descriptor: Int32
    /// Bytes appended and not yet written: `used` of `capacity`.
    private var pending: UnsafeMutableRawPointer
    private var capacity = 1 << 20
    private var used = 0
    /// Bytes appended so far, written or pending.
    private(set) var size: Int64 = 0

    init(directory: String) throws(ImportError) {
        self.directory = directory
        var descriptor = open(directory, Self.temporaryFileFlags | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            Self.removeStale(in: directory)
            var template = Array((directory as NSString).appendingPathComponent(Self.namePrefix + "XXXXXX").utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
            if descriptor >= 0 {
                template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
        }
        guard descriptor >= 0 else { throw .spill(directory: directory, reason: String(cString: strerror(errno))) }
        self.descriptor = descriptor
        pending = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        close(descriptor)
        pending.deallocate()
    }

    /// What a spill file is named for the instant between its creation and its unlinking, where
    /// the filesystem lacks `O_TMPFILE`.
    static let namePrefix = ".importer-sort-"

    /// Removes what a process killed in that instant left in `directory`: spill files named more
    /// than `age` seconds ago (a live one is unlinked within microseconds of its naming).
    static func removeStale(in directory: String, olderThan age: TimeInterval = 60) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in files where name.hasPrefix(namePrefix) {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  Date().timeIntervalSince(modified) > age else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY` on Linux), which Glibc's module does not export.
    private static let temporaryFileFlags: Int32 = 0o20_000_000 | O_DIRECTORY

    /// Room for `count` bytes at the end of the file, to be filled and then `commit`ted.
    @inline(__always)
    func reserve(_ count: Int) throws(ImportError) -> UnsafeMutableRawPointer {
        if used + count > capacity {
            try flush()
            if count > capacity {
                pending.deallocate()
                capacity = count
                pending = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            }
        }
        return pending + used
    }

    /// Appends the first `count` bytes of the room `reserve` gave.
    @inline(__always)
    func commit(_ count: Int) {
        used += count
        size += Int64(count)
    }

    /// Writes what is pending.
    func flush() throws(ImportError) {
        var written = 0
        defer { used = 0 }
        while written < used {
            let count = write(descriptor, pending + written, used - written)
            if count < 0 {
                if errno == EINTR { continue }
                throw .spill(directory: directory, reason: String(cString: strerror(errno)))
            }
            written += count
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (all of them written: `flush` first); fewer
    /// only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ImportError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw .spill(directory: directory, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            done += count
        }
        return done
    }
}
