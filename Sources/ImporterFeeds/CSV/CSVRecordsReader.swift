import ImporterModel

/// Reads comma-separated values with a header row (RFC 4180), streaming (files, pipes and `-`
/// alike; memory stays bounded by the chunk size and the largest row, whatever the file's size).
///
/// Rules:
/// - The first row is the header: fields are header names, matched exactly (a UTF-8 byte order
///   mark is skipped; names are not trimmed). A requested field the header lacks is not supplied.
///   Duplicate names are a shape error; an empty file (or only empty lines) has no header row and is
///   a shape error; a header with no rows is a valid, empty feed.
/// - Every field is a `.string` slot with its unquoted, unescaped bytes (`""` in a quoted field is
///   one quote; an empty field is an empty string: the mapping decides whether that is null).
/// - Quoted fields may hold delimiters, quotes (doubled) and line ends; lines end with LF, CRLF or
///   CR. Empty lines (no byte at all) are skipped; a row with another number of fields than the
///   header is a shape error. A quote inside an unquoted field is taken literally.
/// - Invalid UTF-8, a character after a closing quote and an unterminated quoted field are syntax
///   errors, located at the offending byte or at the field's opening quote; a row larger than
///   `maximumRecordSize` is `recordTooLarge`.
/// - `record.line` is the line of the row's first byte, counting line ends inside quoted fields;
///   slots carry the line and column (in bytes) of their field's first byte (its opening quote
///   when quoted).
///
/// How: `CSVPositionScanner` checks the bytes as they are read and records where rows and fields
/// start; `CSVRowChunks` hands out runs of whole, valid rows; this reader splits each row of a run
/// into the record's byte buffer, copying unquoted fields and the pieces between doubled quotes in
/// bulk. It replaced yaslab/CSV.swift, which builds a `String` one Unicode scalar at a time
/// (figures: Docs/PERFORMANCE.md, "Measurements behind the code"); the random round-trip tests and the comparison with Python's `csv` module check the
/// splitting.
public final class CSVRecordsReader: RecordReader {
    private let chunks: CSVRowChunks
    /// The run of whole rows being split, and where the next row starts in it.
    private var run: [UInt8] = []
    private var cursor = 0
    private enum State { case notOpened, reading, finished }
    private var state = State.notOpened
    /// For each column of the header, the slot it fills, or -1 when not requested.
    private var columnSlots: [Int] = []
    private var rowsRead = 0
    /// The positions of the fields of the row just read.
    private var positions: [CSVFieldPosition] = []
    /// A quoted field's bytes without its quotes (reused).
    private var unescaped: [UInt8] = []
    /// How the file is written (`mapping.csv`; a `.tsv` file's delimiter is a tab unless the
    /// mapping gives one).
    public let dialect: CSVDialect
    private let delimiter: UInt8
    private let comment: [UInt8]
    /// The row before the one being read was blank.
    private var afterBlank = false

    /// `mapping.csv` says how the file is written: its text is decoded from the dialect's encoding
    /// as it is read. `bufferSize` is the size of the chunks read from the source (small sizes
    /// exercise chunk boundaries in tests); `maximumRecordSize` bounds one row in bytes.
    public init(source: ByteSource, mapping: FeedMapping, bufferSize: Int = 1 << 16, maximumRecordSize: Int = 64 << 20) throws(FeedError) {
        var dialect = mapping.csv
        if !dialect.delimiterIsSet && source.name.lowercased().hasSuffix(".tsv") { dialect.delimiter = 0x09 }
        self.dialect = dialect
        delimiter = dialect.delimiter
        comment = dialect.comment.map { Array($0.utf8) } ?? []
        source.decode(dialect.encoding)
        chunks = CSVRowChunks(source: source, chunkSize: bufferSize, maximumRowSize: maximumRecordSize, delimiter: dialect.delimiter)
    }

    private var sourceName: String { chunks.source.name }

    /// Once the feed is read: the line of its last row when the file ends inside it, after an
    /// unquoted field, without a line break (the field may have been cut).
    public var unterminatedLastRow: Int? { chunks.scanner.unterminatedLine }
    public var progress: (read: Int, total: Int?) { (chunks.source.bytesRead, chunks.source.totalBytes) }

    /// The header's columns no requested field reads.
    public private(set) var unmappedFields: [UnmappedField] = []

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        precondition(state == .notOpened, "open(requesting:) called twice")
        // Empty lines before the header are skipped like any other, and its position is known.
        var header: [String]?
        var skipped = 0
        while let mark = try nextMark() {
            if skipped < dialect.skipRows {
                skipped += 1
                if mark.blank { skipBlankRow() } else { splitRow { _, _ in } }
                continue
            }
            if mark.blank {
                skipBlankRow()
                continue
            }
            if isComment() {
                splitRow { _, _ in }
                continue
            }
            var names: [String] = []
            splitRow { _, bytes in names.append(String(decoding: bytes, as: UTF8.self)) }
            header = names
            break
        }
        guard let header else {
            throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1), "the CSV feed is empty: no header row")
        }
        if let (first, column) = ColumnLayout.firstDuplicate(in: header) {
            let position = positions[column]
            throw FeedError.shape(SourceLocation(source: sourceName, line: Int(position.line), column: Int(position.column)),
                                  "column '\(header[column])' appears twice in the header (columns \(first + 1) and \(column + 1))")
        }
        let layout = ColumnLayout(columns: header, requested: fields)
        if !fields.isEmpty && !layout.supplied.contains(true) {
            throw FeedError.shape(SourceLocation(source: sourceName, line: Int(positions.first?.line ?? 1), column: 1),
                                  CSVHeaderDiagnosis.noMappedColumn(header: header, requested: fields, delimiter: delimiter))
        }
        columnSlots = layout.slots
        unmappedFields = zip(header, layout.slots).filter { $0.1 < 0 && !$0.0.isEmpty }.map { UnmappedField(name: $0.0, record: 0) }
        state = .reading
        return FeedHeader(supplied: layout.supplied, columns: header)
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard state == .reading else { return false }
        while true {
            guard let mark = try nextMark() else {
                state = .finished
                return false
            }
            if mark.blank {
                skipBlankRow()
                afterBlank = true
                if dialect.endsAtBlankLine {
                    state = .finished
                    return false
                }
                continue
            }
            if isComment() {
                splitRow { _, _ in }
                continue
            }
            guard mark.fieldCount == columnSlots.count else {
                throw FeedError.shape(SourceLocation(source: sourceName, line: mark.line, column: 1, recordIndex: rowsRead),
                                      "the row at line \(mark.line) has \(mark.fieldCount) field\(mark.fieldCount == 1 ? "" : "s") but the header has \(columnSlots.count)"
                                        + (afterBlank ? " (a second table after a blank line? `csv: {end: blank-line}` ends the records there)" : ""))
            }
            afterBlank = false
            record.reset()
            let slots = columnSlots
            let positions = positions
            splitRow { column, bytes in
                let slot = slots[column]
                guard slot >= 0 else { return }
                let start = record.bytes.count
                record.bytes.append(contentsOf: bytes)
                let position = positions[column]
                record.slots[slot] = RawSlot(kind: .string, start: Int32(truncatingIfNeeded: start),
                                             count: Int32(truncatingIfNeeded: record.bytes.count - start),
                                             line: position.line, column: position.column)
            }
            record.index = rowsRead
            record.line = mark.line
            record.column = 1
            rowsRead += 1
            return true
        }
    }

    /// The scanner's mark of the next row (its fields' positions in `positions`), with the run
    /// holding its bytes at `cursor`; nil at the end of the feed. Reports the scanner's error at
    /// the row that holds it.
    private func nextMark() throws(FeedError) -> CSVRowMark? {
        while cursor >= run.count {
            guard let bytes = try chunks.next() else { break }
            run = bytes
            cursor = 0
        }
        guard let mark = chunks.popRow(positions: &positions) else {
            if let error = chunks.scanner.error { throw located(error) }
            return nil
        }
        return mark
    }

    /// Whether the row at `cursor` begins with the dialect's comment prefix.
    private func isComment() -> Bool {
        guard !comment.isEmpty, cursor + comment.count <= run.count else { return false }
        return run[cursor ..< cursor + comment.count].elementsEqual(comment)
    }

    /// Steps over an empty line (its line end) at `cursor`.
    private func skipBlankRow() {
        guard cursor < run.count else { return }
        let byte = run[cursor]
        cursor += 1
        if byte == UInt8(ascii: "\r"), cursor < run.count, run[cursor] == UInt8(ascii: "\n") { cursor += 1 }
    }

    /// Splits the row at `cursor` (whole and valid: the scanner checked it) into its fields' bytes,
    /// unquoted and unescaped, calling `field(column, bytes)` for each; leaves `cursor` after the
    /// row's line end. The bytes are valid during the call only.
    private func splitRow(_ field: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        let comma = delimiter, quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        var unescaped = self.unescaped
        defer { self.unescaped = unescaped }
        cursor = run.withUnsafeBufferPointer { bytes -> Int in
            let end = bytes.count
            var i = cursor
            var column = 0
            while true {
                if i < end, bytes[i] == quote {
                    // Quoted: the pieces between doubled quotes, up to the closing quote.
                    unescaped.removeAll(keepingCapacity: true)
                    i += 1
                    var start = i
                    while i < end {
                        if bytes[i] == quote {
                            unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                            if i + 1 < end, bytes[i + 1] == quote {
                                unescaped.append(quote)
                                i += 2
                                start = i
                                continue
                            }
                            i += 1
                            break
                        }
                        i += 1
                    }
                    unescaped.withUnsafeBufferPointer { field(column, $0) }
                } else {
                    let start = i
                    while i < end, bytes[i] != comma, bytes[i] != lf, bytes[i] != cr { i += 1 }
                    field(column, UnsafeBufferPointer(rebasing: bytes[start..<i]))
                }
                // After a field: a delimiter, a line end, or the end of the input.
                guard i < end else { return i }
                let byte = bytes[i]
                i += 1
                if byte == comma {
                    column += 1
                    continue
                }
                if byte == cr, i < end, bytes[i] == lf { i += 1 }
                return i
            }
        }
    }

    /// `error` with the index of the record being read, when it is inside a data row.
    private func located(_ error: FeedError) -> FeedError {
        guard state == .reading else { return error }
        switch error {
        case .syntax(var location, let expected, let found):
            location.recordIndex = rowsRead
            return .syntax(location, expected: expected, found: found)
        case .recordTooLarge(var location, let limit):
            location.recordIndex = rowsRead
            return .recordTooLarge(location, limit: limit)
        default:
            return error
        }
    }
}
