import Foundation

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

    deinit { if ownsDescriptor { close(descriptor) } }

    /// Reads up to `count` bytes into `buffer`; returns 0 at the end of the input.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(FeedError) -> Int {
        while true {
            let n = Foundation.read(descriptor, buffer, count)
            if n >= 0 {
                bytesRead += n
                return n
            }
            if errno == EINTR { continue }
            throw FeedError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
    }
}
