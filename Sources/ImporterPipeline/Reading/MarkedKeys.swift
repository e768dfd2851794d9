import Foundation
import Glibc
import ImporterKeyOrder
import ImporterModel
import ImporterSupport

/// The keys of the records a feed marked deleted (`delete-marker`), each its values in the key's
/// order: up to `memoryLimit` in memory, the rest spilled to an unnamed temporary file as JSON
/// lines, read back a chunk at a time when their deletes run. Memory stays bounded however many
/// records a feed marks.
///
/// Ownership: the spill file's descriptor has one owner at a time, the feed's reader, then the run
/// that deletes the keys (`MappedFeed.takeMarkedKeys` moves it), which `close`s it once.
struct MarkedKeys: Sendable {
    static let memoryLimit = 10_000
    static let namePrefix = "importer-marked"
    let directory: String
    private(set) var count = 0
    private var pending: [[Value]] = []
    private var descriptor: Int32 = -1
    private var spilled: Int64 = 0

    init(directory: String) {
        self.directory = directory
    }

    /// Closes the spill file (by its last owner, once).
    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    mutating func append(_ key: [Value]) throws {
        pending.append(key)
        count += 1
        if pending.count >= Self.memoryLimit { try spill() }
    }

    /// Writes the keys in memory to the file; a failure (a full disk) is a `SpillError`.
    private mutating func spill() throws {
        do {
            try write()
        } catch let failure as UnnamedFile.Failure {
            throw SpillError(directory: directory, reason: "the keys of records marked deleted: " + failure.reason)
        }
    }

    private mutating func write() throws {
        if descriptor < 0 { descriptor = try UnnamedFile.create(in: directory, prefix: Self.namePrefix) }
        let encoder = JSONEncoder()
        var bytes = Data()
        for key in pending {
            bytes += try encoder.encode(key)
            bytes.append(0x0A)
        }
        let (descriptor, offset) = (self.descriptor, spilled)
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> Void in try UnnamedFile.write(descriptor, buffer, at: offset) }
        spilled += Int64(bytes.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the keys, at most `memoryLimit` at a time, in the order appended.
    func forEachChunk(_ body: ([[Value]]) throws -> Void) throws {
        let decoder = JSONDecoder()
        var chunk: [[Value]] = []
        var carry: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < spilled {
            let (descriptor, position) = (self.descriptor, offset)
            let read = try buffer.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) throws -> Int in try UnnamedFile.read(descriptor, into: bytes, at: position) }
            guard read > 0 else { break }
            offset += Int64(read)
            carry += buffer[0..<read]
            var start = 0
            while let end = carry[start...].firstIndex(of: 0x0A) {
                chunk.append(try decoder.decode([Value].self, from: Data(carry[start..<end])))
                start = end + 1
                if chunk.count == Self.memoryLimit {
                    try body(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            carry.removeFirst(start)
        }
        for key in pending {
            chunk.append(key)
            if chunk.count == Self.memoryLimit {
                try body(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try body(chunk) }
    }
}
