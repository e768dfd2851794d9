import Foundation
import ImporterModel

/// A forward-only stream of bytes from a file or standard input, read in chunks.
///
/// The readers own one and pull from it; nothing is ever read twice, so `-` (stdin) and pipes work
/// like files, and memory stays bounded by the buffer size whatever the feed's size.
public final class ByteSource {
    /// The name used in locations: the path, or `<stdin>`.
    public private(set) var name: String
    /// Total size in bytes when known (regular files), for progress.
    public let totalBytes: Int?
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    public private(set) var bytesRead = 0
    /// Decodes the bytes to UTF-8 when the feed is in another encoding (`decode(_:)`).
    private var decoder: SourceDecoder?
    /// Decoded bytes not yet handed out, from `pendingStart` on.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// The undecoded bytes of one read (allocated on the first decoded read).
    private var rawChunk = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// Opens `path`, or standard input when `path` is `-`; locations name it `name` (the path by
    /// default; a fetched feed's URL).
    public convenience init(path: String, name: String) throws(FeedError) {
        try self.init(path: path)
        self.name = name
    }

    /// Opens `path`, or standard input when `path` is `-`.
    public init(path: String) throws(FeedError) {
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            name = "<stdin>"
            totalBytes = nil
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FeedError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw FeedError.unreadable(path: path, reason: "is a directory")
        }
        descriptor = fd
        ownsDescriptor = true
        name = path
        totalBytes = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        rawChunk.deallocate()
    }

    /// Reads the rest of the input as text in `encoding`, handing it out as UTF-8 (nothing changes
    /// for UTF-8). Called before the first read.
    public func decode(_ encoding: TextEncoding) {
        guard encoding != .utf8 else { return }
        decoder = SourceDecoder(encoding: encoding, sourceName: name)
    }

    /// Reads up to `count` bytes into `buffer` (decoded to UTF-8, when `decode(_:)` said so);
    /// returns 0 at the end of the input. `bytesRead` counts the bytes of the source.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(FeedError) -> Int {
        guard decoder != nil else { return try readRaw(into: buffer, count: count) }
        while pendingStart >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            if rawChunk.count < count {
                rawChunk.deallocate()
                rawChunk = .allocate(byteCount: max(count, 1 << 12), alignment: 1)
            }
            guard let base = rawChunk.baseAddress else { return 0 }
            let n = try readRaw(into: base, count: count)
            if n == 0 {
                try decoder?.finish()
                return 0
            }
            try decoder?.decode(UnsafeRawBufferPointer(start: base, count: n), into: &pending)
        }
        let taken = min(count, pending.count - pendingStart)
        pending.withUnsafeBytes { decoded in
            guard let base = decoded.baseAddress else { return }
            buffer.copyMemory(from: base + pendingStart, byteCount: taken)
        }
        pendingStart += taken
        return taken
    }

    private func readRaw(into buffer: UnsafeMutableRawPointer, count: Int) throws(FeedError) -> Int {
        while true {
            let n = Foundation.read(descriptor, buffer, count)
            if n >= 0 {
                // No reader takes compressed bytes: say what the file is, not which byte surprised.
                if bytesRead == 0 && n >= 2 && buffer.load(fromByteOffset: 0, as: UInt8.self) == 0x1F && buffer.load(fromByteOffset: 1, as: UInt8.self) == 0x8B {
                    throw FeedError.shape(SourceLocation(source: name, line: 1, column: 1), "the file is gzip-compressed: decompress it first (gunzip, or zcat FILE | importer run … -)")
                }
                bytesRead += n
                return n
            }
            if errno == EINTR { continue }
            throw FeedError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
    }
}
