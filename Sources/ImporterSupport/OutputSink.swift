import Foundation

/// A buffered writer to a file descriptor (stdout by default), for reports that may be large.
///
/// Reports stream into it; bytes reach the descriptor in 64 KiB writes. A write error (a closed
/// pipe, a full disk) is remembered and thrown by `flush()`.
public final class OutputSink: TextOutputStream {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: Int32?

    public init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    /// An in-memory sink (descriptor -1): the text is kept in `buffer` (for tests).
    public static func memory() -> OutputSink { OutputSink(descriptor: -1) }

    /// What an in-memory sink holds.
    public var memoryText: String { String(decoding: buffer, as: UTF8.self) }

    public func write(_ string: String) {
        var string = string
        string.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= 1 << 16 && descriptor >= 0 { drain() }
    }

    @inline(__always)
    public func writeByte(_ byte: UInt8) {
        buffer.append(byte)
    }

    @inline(__always)
    public func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 && descriptor >= 0 { drain() }
    }

    private func drain() {
        guard failure == nil else { buffer.removeAll(keepingCapacity: true); return }
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { bytes in
                bytes.baseAddress.map { Foundation.write(descriptor, $0 + offset, bytes.count - offset) } ?? 0
            }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered; throws if any write failed.
    public func flush() throws {
        if descriptor >= 0 { drain() }
        if let failure { throw OutputError.writeFailed(String(cString: strerror(failure))) }
    }

    /// Hands what a memory sink holds to `body`, then empties it (its capacity kept).
    public func drainMemory<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        defer { buffer.removeAll(keepingCapacity: true) }
        return try buffer.withUnsafeBufferPointer(body)
    }

    /// The text written so far (memory sinks only).
    public var text: String { String(decoding: buffer, as: UTF8.self) }
}

public enum OutputError: Error, CustomStringConvertible {
    case writeFailed(String)
    public var description: String {
        switch self { case .writeFailed(let reason): "cannot write the output: \(reason)" }
    }
}

extension OutputError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .writeFailed: .ioError
        }
    }
}
