import Foundation
import ImporterModel

/// One sorted run in a `SpillFile`: `count` records from `offset`, in key order, each written as
/// its origin then its values (`write`), so that reading it back (`SortedRun.Reader`) gives the
/// records, origins and values exactly as the feed's batches held them.
///
/// A record: record index (8 bytes), line and column (4 each), then per value a tag byte and its
/// payload (8 bytes for a number, a 4-byte length and the bytes for text, none for null); little
/// endian, unaligned.
struct SortedRun {
    var offset: Int64
    var count: Int

    private enum Tag: UInt8 { case null, integer, real, text }

    /// Writes the records of `batches` that `order` names (`RunSpiller.order`: a batch's index
    /// in the high 32 bits, a record's in the low), in that order, to the end of `file`.
    static func write(_ batches: [RecordBatch], order: [UInt64], to file: SpillFile) throws(SpillError) -> SortedRun {
        var run = SortedRun(offset: file.size, count: 0)
        // Read in place: a batch copied out of the array per record retained each of its arrays.
        try batches.withUnsafeBufferPointer { (batches) throws(SpillError) in
            for reference in order {
                try write(Int(reference & 0xFFFF_FFFF), of: batches[Int(reference >> 32)], to: file)
                run.count += 1
            }
        }
        try file.flush()
        return run
    }

    @inline(__always)
    private static func write(_ record: Int, of batch: RecordBatch, to file: SpillFile) throws(SpillError) {
        var bytes = 16 + batch.width * 9
        for position in 0..<batch.width {
            if case .text(_, let count) = batch.value(record: record, position: position) { bytes += Int(count) }
        }
        let out = try file.reserve(bytes)
        let written = batch.arena.withUnsafeBufferPointer { arena in
            encode(record, of: batch, arena: arena.baseAddress ?? emptyBytes, into: out)
        }
        file.commit(written)
    }

    /// Writes record `record` of `batch` at `out`; the bytes written.
    @inline(__always)
    private static func encode(_ record: Int, of batch: RecordBatch, arena: UnsafePointer<UInt8>, into out: UnsafeMutableRawPointer) -> Int {
        let origin = batch.origins[record]
        out.storeBytes(of: Int64(origin.recordIndex).littleEndian, as: Int64.self)
        out.storeBytes(of: origin.line.littleEndian, toByteOffset: 8, as: Int32.self)
        out.storeBytes(of: origin.column.littleEndian, toByteOffset: 12, as: Int32.self)
        var at = 16
        for position in 0..<batch.width {
            switch batch.value(record: record, position: position) {
            case .null:
                out.storeBytes(of: Tag.null.rawValue, toByteOffset: at, as: UInt8.self)
                at += 1
            case .integer(let value):
                out.storeBytes(of: Tag.integer.rawValue, toByteOffset: at, as: UInt8.self)
                out.storeBytes(of: value.littleEndian, toByteOffset: at + 1, as: Int64.self)
                at += 9
            case .real(let value):
                out.storeBytes(of: Tag.real.rawValue, toByteOffset: at, as: UInt8.self)
                out.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: at + 1, as: UInt64.self)
                at += 9
            case .text(let start, let count):
                out.storeBytes(of: Tag.text.rawValue, toByteOffset: at, as: UInt8.self)
                out.storeBytes(of: count.littleEndian, toByteOffset: at + 1, as: Int32.self)
                (out + at + 5).copyMemory(from: arena + Int(start), byteCount: Int(count))
                at += 5 + Int(count)
            }
        }
        return at
    }

    /// Reads a run back, a block of records at a time, into a batch with the feed's columns that
    /// the caller owns (`makeBlock`, `refill`): the merge reads its blocks in place, where a
    /// block kept here would be copied out of this class at every comparison.
    final class Reader {
        private let file: SpillFile.Reading
        /// Where in the file the next bytes to read are.
        private var offset: Int64
        /// Records of the run not yet decoded.
        private var left: Int
        /// Bytes read and not yet decoded: `start..<end` of `capacity`.
        private var buffer: UnsafeMutableRawPointer
        private var capacity: Int
        private var start = 0
        private var end = 0
        private let columns: [Int]
        private let keyPositions: [Int]
        private let blockRecords: Int

        /// A reader of `run` holding about `memory` bytes: half for the bytes read, half for the
        /// block decoded (a merge of many runs gives each less).
        init(_ run: SortedRun, in file: SpillFile.Reading, columns: [Int], keyPositions: [Int], memory: Int) {
            self.file = file
            offset = run.offset
            left = run.count
            capacity = min(max(memory / 2, 8 << 10), 64 << 10)
            blockRecords = min(max(memory / 2 / (24 + 16 * columns.count), 32), 512)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            self.columns = columns
            self.keyPositions = keyPositions
        }

        deinit { buffer.deallocate() }

        /// An empty block for `refill`, holding as many records as one refill decodes.
        func makeBlock() -> RecordBatch {
            RecordBatch(columns: columns, keyPositions: keyPositions, capacity: blockRecords)
        }

        /// Replaces `block`'s records with the run's next ones (none once the run is read).
        func refill(_ block: inout RecordBatch) throws(SpillError) {
            block.removeAll()
            for _ in 0..<min(left, blockRecords) {
                try decodeRecord(into: &block)
                left -= 1
            }
        }

        @inline(__always)
        private func decodeRecord(into batch: inout RecordBatch) throws(SpillError) {
            try need(16)
            let origin = RecordOrigin(recordIndex: Int(Int64(littleEndian: load(Int64.self, at: 0))),
                                      line: Int32(littleEndian: load(Int32.self, at: 8)), column: Int32(littleEndian: load(Int32.self, at: 12)))
            start += 16
            for _ in 0..<batch.width {
                try need(1)
                let tag = Tag(rawValue: load(UInt8.self, at: 0))
                switch tag {
                case .integer?:
                    try need(9)
                    batch.append(.integer(Int64(littleEndian: load(Int64.self, at: 1))))
                    start += 9
                case .real?:
                    try need(9)
                    batch.append(.real(Double(bitPattern: UInt64(littleEndian: load(UInt64.self, at: 1)))))
                    start += 9
                case .text?:
                    try need(5)
                    let count = Int(Int32(littleEndian: load(Int32.self, at: 1)))
                    try need(5 + count)
                    let text = batch.appendText((buffer + start + 5).assumingMemoryBound(to: UInt8.self), count: count)
                    batch.append(text)
                    start += 5 + count
                default:
                    batch.append(.null)
                    start += 1
                }
            }
            batch.commitRecord(origin)
        }

        @inline(__always)
        private func load<T>(_ type: T.Type, at delta: Int) -> T {
            buffer.loadUnaligned(fromByteOffset: start + delta, as: T.self)
        }

        /// Makes `count` bytes from `start` available (fewer only past the file's end, where a
        /// run is never read, since its records are counted).
        @inline(__always)
        private func need(_ count: Int) throws(SpillError) {
            guard end - start < count else { return }
            let kept = end - start
            if count > capacity {
                let larger = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
                larger.copyMemory(from: buffer + start, byteCount: kept)
                buffer.deallocate()
                buffer = larger
                capacity = count
            } else {
                memmove(buffer, buffer + start, kept)
            }
            start = 0
            end = kept
            let read = try file.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end), at: offset)
            offset += Int64(read)
            end += read
            guard end >= count else {
                throw SpillError(directory: file.directory, reason: "a sorted run ends early (the temporary file was cut short)")
            }
        }
    }
}
