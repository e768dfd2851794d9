import ImporterModel

/// Reads a `ByteSource` in chunks, has each chunk scanned by a `CSVPositionScanner`, and hands out
/// the input as byte runs of whole rows (a row is never split between two runs), for
/// `CSVRecordsReader` to split one run at a time.
///
/// Memory is bounded by the chunk size plus the largest row (itself bounded by the scanner's limit).
/// A UTF-8 byte order mark is dropped, whatever the chunking. When the scanner finds a problem, the
/// valid bytes before it are handed out (the rows before it, and the start of the faulty one) and
/// then nothing more: the reader reports the scanner's error at that row.
final class CSVRowChunks {
    let source: ByteSource
    private(set) var scanner: CSVPositionScanner
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private let chunkSize: Int
    /// Bytes in `storage`: `[0, count)`, of which `[0, valid)` are scanned and valid.
    private var count = 0
    private var valid = 0
    /// Absolute offset in the file of `storage[0]`.
    private var base = 0
    private var started = false
    private var atEnd = false
    private var done = false

    init(source: ByteSource, chunkSize: Int = 1 << 16, maximumRowSize: Int = 64 << 20, delimiter: UInt8 = UInt8(ascii: ",")) {
        self.source = source
        self.chunkSize = max(chunkSize, 1)
        self.capacity = max(chunkSize, 4) * 2
        self.storage = .allocate(capacity: capacity)
        self.scanner = CSVPositionScanner(sourceName: source.name, maximumRowSize: maximumRowSize, delimiter: delimiter)
    }

    deinit { storage.deallocate() }

    /// The next complete row's mark (see `CSVPositionScanner.popRow`).
    func popRow(positions: inout [CSVFieldPosition]) -> CSVRowMark? {
        scanner.popRow(positions: &positions)
    }

    /// Where the scan is: the end of the valid input scanned so far.
    var scanLocation: SourceLocation { scanner.location(at: base + valid) }

    /// The next run of whole rows, or nil when the input is exhausted (or the scan stopped and the
    /// valid bytes before the problem have been handed out).
    func next() throws(FeedError) -> [UInt8]? {
        while !done {
            let cut: Int
            if scanner.error != nil || atEnd {
                // Everything valid: the last rows, or the rows before a problem and its start.
                cut = valid
                done = true
            } else {
                cut = scanner.cut(scannedTo: base + valid) - base
            }
            if cut > 0 {
                let text = Array(UnsafeBufferPointer(start: storage, count: cut))
                storage.update(from: storage + cut, count: count - cut)
                count -= cut
                valid -= cut
                base += cut
                return text
            }
            if !done { try read() }
        }
        return nil
    }

    /// Reads and scans the next chunk of the source.
    private func read() throws(FeedError) {
        if capacity - count < chunkSize {
            // The row being scanned fills the buffer: grow it (the scanner bounds the row size).
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + chunkSize))
            larger.update(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity = max(capacity * 2, count + chunkSize)
        }
        var n = try source.read(into: storage + count, count: chunkSize)
        if n == 0 {
            atEnd = true
            scanner.finish()
            return
        }
        if !started {
            // At least 3 bytes (or all there is) to see a byte order mark whatever the chunking.
            while n > 0 && n < 3 {
                let more = try source.read(into: storage + n, count: capacity - n)
                if more == 0 { break }
                n += more
            }
            started = true
            if n >= 3 && storage[0] == 0xEF && storage[1] == 0xBB && storage[2] == 0xBF {
                storage.update(from: storage + 3, count: n - 3)
                n -= 3
                base = 3
                scanner.startAfterByteOrderMark()
            }
        }
        valid = count + scanner.scan(storage + count, count: n, offset: base + count)
        count += n
    }
}
