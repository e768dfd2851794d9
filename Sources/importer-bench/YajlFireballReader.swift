import CYajl
import Foundation

/// Reads the fireball API feed with yajl's streaming (callback) parser and maps every row as
/// importer's `NASAColumnarReader` + `RecordMapper` do, so the two can be timed on the same work.
///
/// The file is read in 64 KiB chunks and pushed through `yajl_parse`. yajl's callbacks are C
/// function pointers (`@convention(c)` closures that capture nothing): each one gets this object
/// back from yajl's context pointer (`Unmanaged`, unretained) and hands the event to the
/// `YajlFeedState` it keeps behind a pointer, which tracks the structure and maps the rows.
/// Not mirrored (header work, once per feed): the check of `signature.version`.
final class YajlFireballReader {
    struct Result {
        var records: Int
        var bytes: Int
        var digest: ParseDigest?
    }

    /// The parse state, behind a pointer (see `YajlFeedState` for why).
    private let state: UnsafeMutablePointer<YajlFeedState>

    private init(batchSize: Int) throws {
        state = .allocate(capacity: 1)
        do {
            state.initialize(to: try YajlFeedState(batchSize: batchSize))
        } catch {
            state.deallocate()
            throw error
        }
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Parses and maps the feed at `path`. With `mapping` false, yajl runs with no callbacks at all
    /// (tokenizing and validating only: the parser's floor) and the result has no digest.
    static func read(path: String, mapping: Bool = true, chunkSize: Int = 64 * 1024, batchSize: Int = 8192) throws -> Result {
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { Foundation.close(fd) }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        defer { buffer.deallocate() }
        let reader = try YajlFireballReader(batchSize: batchSize)
        var bytes = 0
        try withExtendedLifetime(reader) {
            // yajl keeps the callbacks pointer: the handle is freed before the pointer goes.
            try withUnsafePointer(to: callbacks) { callbacks in
                guard let handle = yajl_alloc(mapping ? callbacks : nil, nil, Unmanaged.passUnretained(reader).toOpaque()) else {
                    throw BenchError.failed("yajl_alloc failed")
                }
                defer { yajl_free(handle) }
                while true {
                    let count = Foundation.read(fd, buffer, chunkSize)
                    if count < 0 {
                        guard errno == EINTR else { throw BenchError.io("cannot read \(path): \(String(cString: strerror(errno)))") }
                        continue
                    }
                    if count == 0 { break }
                    bytes += count
                    let status = yajl_parse(handle, buffer, count)
                    guard status == yajl_status_ok else { throw reader.error(handle, status, buffer, count, path) }
                }
                let status = yajl_complete_parse(handle)
                guard status == yajl_status_ok else { throw reader.error(handle, status, nil, 0, path) }
            }
        }
        guard mapping else { return Result(records: 0, bytes: bytes, digest: nil) }
        let state = reader.state.pointee
        guard state.place == .end else { throw BenchError.failed("\(path): the feed object is incomplete") }
        return Result(records: state.records, bytes: bytes, digest: state.digest)
    }

    private func error(_ handle: yajl_handle, _ status: yajl_status, _ text: UnsafePointer<UInt8>?, _ count: Int, _ path: String) -> BenchError {
        if status == yajl_status_client_canceled { return .failed("\(path): \(state.pointee.failure ?? "cancelled")") }
        guard let message = yajl_get_error(handle, 1, text, count) else { return .failed("\(path): yajl error") }
        defer { yajl_free_error(handle, message) }
        return .failed("\(path): yajl: \(String(cString: message))")
    }

    /// The callbacks: each returns 0 to stop the parse (`yajl_status_client_canceled`). JSON
    /// numbers arrive as text (`yajl_number`), so `NumberParser` parses them as in importer.
    private static var callbacks: yajl_callbacks {
        yajl_callbacks(
            yajl_null: { context in YajlFireballReader.with(context) { $0.scalar(.null, nil, 0) } },
            yajl_boolean: { context, _ in YajlFireballReader.with(context) { $0.scalar(.boolean, nil, 0) } },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { context, text, count in
                YajlFireballReader.with(context) { $0.scalar(.number, text.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }, count) }
            },
            yajl_string: { context, text, count in YajlFireballReader.with(context) { $0.scalar(.string, text, count) } },
            yajl_start_map: { context in YajlFireballReader.with(context) { $0.open(array: false) } },
            yajl_map_key: { context, text, count in YajlFireballReader.with(context) { $0.key(text, count) } },
            yajl_end_map: { context in YajlFireballReader.with(context) { $0.close(array: false) } },
            yajl_start_array: { context in YajlFireballReader.with(context) { $0.open(array: true) } },
            yajl_end_array: { context in YajlFireballReader.with(context) { $0.close(array: true) } }
        )
    }

    /// Calls `body` on the state of the reader behind yajl's context pointer (the one given to
    /// `yajl_alloc`, kept alive by `read`), without retaining the reader.
    @inline(__always)
    private static func with(_ context: UnsafeMutableRawPointer?, _ body: (inout YajlFeedState) -> Int32) -> Int32 {
        guard let context else { return 0 }
        return Unmanaged<YajlFireballReader>.fromOpaque(context)._withUnsafeGuaranteedRef { body(&$0.state.pointee) }
    }
}
