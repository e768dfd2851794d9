import Foundation
import Glibc
import ImporterSupport

/// An unnamed temporary file (`UnnamedFile`) that a feed's sorted runs are spilled to.
///
/// Invariant: the file has no name once `init` returns, so nothing is left behind however the
/// process ends, `kill -9` included: its space is freed when the descriptor closes. Writes are
/// buffered; a failed write (a full disk) is `SpillError`.
final class SpillFile {
    let directory: String
    private let descriptor: Int32
    /// Bytes appended and not yet written: `used` of `capacity`.
    private var pending: UnsafeMutableRawPointer
    private var capacity = 1 << 20
    private var used = 0
    /// Bytes appended so far, written or pending.
    private(set) var size: Int64 = 0

    init(directory: String) throws(SpillError) {
        self.directory = directory
        do {
            descriptor = try UnnamedFile.create(in: directory, prefix: Self.namePrefix)
        } catch {
            throw SpillError(directory: directory, reason: error.reason)
        }
        pending = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        close(descriptor)
        pending.deallocate()
    }

    /// What a spill file is named for the instant it has one (see `UnnamedFile`).
    static let namePrefix = ".importer-sort"

    /// Room for `count` bytes at the end of the file, to be filled and then `commit`ted.
    @inline(__always)
    func reserve(_ count: Int) throws(SpillError) -> UnsafeMutableRawPointer {
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
    func flush() throws(SpillError) {
        var written = 0
        defer { used = 0 }
        while written < used {
            let count = write(descriptor, pending + written, used - written)
            if count < 0 {
                if errno == EINTR { continue }
                throw SpillError(directory: directory, reason: String(cString: strerror(errno)))
            }
            written += count
        }
    }

    /// What the readers of the runs need: reads at offsets, nothing written. A value, so that the
    /// readers can be sent to the merger's thread while the file stays here.
    var reading: Reading { Reading(directory: directory, descriptor: descriptor) }

    /// Reads of the file at offsets (`pread`): valid while the `SpillFile` is open.
    struct Reading: Sendable {
        let directory: String
        fileprivate let descriptor: Int32

        /// Reads up to `buffer.count` bytes at `offset` (all of them written: `flush` first);
        /// fewer only at the end of the file.
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SpillError) -> Int {
            do {
                return try UnnamedFile.read(descriptor, into: buffer, at: offset)
            } catch {
                throw SpillError(directory: directory, reason: error.reason)
            }
        }
    }
}
