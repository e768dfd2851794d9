import Foundation
import Glibc
import ImporterModel
import ImporterSupport

/// An unnamed temporary file of `(parent key, JSON object)` entries, written once in key order and
/// read back once in the same order: how `export` nests an entity's children under their parents
/// with memory bounded by one buffer, however many children a store holds.
///
/// Entry layout: its length (UInt32), then each key value (a tag byte: 0 null, 1 integer, 2 real,
/// 3 text; then 8 bytes, or a UInt32 length and UTF-8 bytes), then the JSON bytes to the end.
final class ChildSpool {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var size: Int64 = 0
    private let keyCount: Int

    /// A spool for entries keyed by `keyCount` values, in `directory`.
    init(keyCount: Int, directory: String = FileManager.default.temporaryDirectory.path) throws(OutputError) {
        self.keyCount = keyCount
        do {
            descriptor = try UnnamedFile.create(in: directory, prefix: ".importer-export")
        } catch {
            throw OutputError.writeFailed("a temporary file in \(directory): \(error.reason)")
        }
        pending.reserveCapacity(Self.bufferSize)
    }

    deinit { close(descriptor) }

    private static let bufferSize = 1 << 20

    /// Appends an entry; `key` holds `keyCount` values.
    func append(key: ArraySlice<Value>, json: UnsafeBufferPointer<UInt8>) throws(OutputError) {
        let start = pending.count
        pending.append(contentsOf: [0, 0, 0, 0])
        for value in key { Self.encode(value, into: &pending) }
        pending.append(contentsOf: json)
        let length = UInt32(pending.count - start)
        withUnsafeBytes(of: length.littleEndian) { pending.replaceSubrange(start..<start + 4, with: $0) }
        if pending.count >= Self.bufferSize { try flush() }
    }

    /// Ends the writing: the entries, read from the first.
    func reader() throws(OutputError) -> Reader {
        try flush()
        return Reader(spool: self)
    }

    private func flush() throws(OutputError) {
        do {
            try pending.withUnsafeBytes { bytes in try UnnamedFile.write(descriptor, bytes, at: size) }
        } catch {
            throw OutputError.writeFailed("a temporary file: \((error as? UnnamedFile.Failure)?.reason ?? "\(error)")")
        }
        size += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    private static func encode(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(0)
        case .integer(let number):
            bytes.append(1)
            withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
        case .real(let number):
            bytes.append(2)
            withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case .text(let text):
            bytes.append(3)
            withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// The spool's entries in the order they were written, taken by parent.
    final class Reader {
        private let spool: ChildSpool
        private var chunk: [UInt8] = []
        private var position = 0
        private var offset: Int64 = 0
        /// The next entry, read and not yet taken: its key and the range of its JSON in `chunk`.
        private var next: (key: [Value], json: Range<Int>)?
        /// Entries whose parent key preceded every parent asked for: children without a parent.
        private(set) var orphans = 0

        fileprivate init(spool: ChildSpool) { self.spool = spool }

        /// Calls `body` with the JSON of each entry keyed `key`, skipping (and counting) those
        /// keyed before it. Parents must be asked for in key order.
        func take(_ key: [Value], _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
            while let entry = try peek() {
                let order = Self.compare(entry.key, key)
                if order > 0 { return }
                if order == 0 { try chunk.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[entry.json])) } } else { orphans += 1 }
                next = nil
            }
        }

        /// Counts the entries left (children after the last parent).
        func finish() throws {
            while try peek() != nil { orphans += 1; next = nil }
        }

        private static func compare(_ a: [Value], _ b: [Value]) -> Int {
            for (x, y) in zip(a, b) { let order = Value.compare(x, y); if order != 0 { return order } }
            return 0
        }

        private func peek() throws(OutputError) -> (key: [Value], json: Range<Int>)? {
            if let next { return next }
            guard try available(4) else { return nil }
            let length = Int(load(UInt32.self, at: position))
            guard try available(length) else { throw OutputError.writeFailed("a temporary file ends inside an entry") }
            let end = position + length
            var cursor = position + 4
            var key: [Value] = []
            for _ in 0..<spool.keyCount { key.append(decode(at: &cursor)) }
            next = (key, cursor..<end)
            position = end
            return next
        }

        private func decode(at cursor: inout Int) -> Value {
            let tag = chunk[cursor]
            cursor += 1
            switch tag {
            case 0:
                return .null
            case 1:
                defer { cursor += 8 }
                return .integer(Int64(littleEndian: load(Int64.self, at: cursor)))
            case 2:
                defer { cursor += 8 }
                return .real(Double(bitPattern: UInt64(littleEndian: load(UInt64.self, at: cursor))))
            default:
                let count = Int(load(UInt32.self, at: cursor))
                defer { cursor += 4 + count }
                return .text(String(decoding: chunk[cursor + 4..<cursor + 4 + count], as: UTF8.self))
            }
        }

        private func load<T: FixedWidthInteger>(_ type: T.Type, at index: Int) -> T {
            chunk.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: index, as: T.self)) }
        }

        /// Whether `count` bytes from `position` are in `chunk`, reading more of the file (and
        /// dropping what was consumed) when they are not; false at the end of the file.
        private func available(_ count: Int) throws(OutputError) -> Bool {
            if chunk.count - position >= count { return true }
            chunk.removeSubrange(0..<position)
            position = 0
            let wanted = max(count - chunk.count, ChildSpool.bufferSize)
            let start = chunk.count
            chunk.append(contentsOf: repeatElement(0, count: wanted))
            let read: Int
            do {
                read = try chunk.withUnsafeMutableBytes { bytes in
                    try UnnamedFile.read(spool.descriptor, into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), at: offset)
                }
            } catch {
                throw OutputError.writeFailed("a temporary file: \((error as? UnnamedFile.Failure)?.reason ?? "\(error)")")
            }
            chunk.removeLast(wanted - read)
            offset += Int64(read)
            return chunk.count >= count
        }
    }
}
