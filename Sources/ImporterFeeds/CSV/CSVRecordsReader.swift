import CSV
import ImporterModel

/// Reads comma-separated values with a header row (RFC 4180), streaming row by row through
/// yaslab/CSV.swift's `CSVReader` (files, pipes and `-` alike; memory stays bounded by the chunk
/// size and the largest row, whatever the file's size).
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
///   header is a shape error.
/// - Invalid UTF-8, a character after a closing quote and an unterminated quoted field are syntax
///   errors, located at the offending byte or at the field's opening quote; a row larger than
///   `maximumRecordSize` is `recordTooLarge`.
/// - `record.line` is the line of the row's first byte, counting line ends inside quoted fields;
///   slots carry the line and column (in bytes) of their field's first byte (its opening quote
///   when quoted).
///
/// How CSV.swift is used: `CSVPositionScanner` scans the bytes as they are read, for the positions
/// and checks CSV.swift does not provide, and knows where rows end; `CSVRowChunks` hands CSV.swift
/// the input as texts of whole rows (about 64 KiB each), each parsed by a `CSVReader(string:)`.
/// CSV.swift's own stream input (`CSVReader(stream: InputStream)`, fed by an `InputStream` subclass
/// over the `ByteSource`) works too, on Linux as well, but measured half as fast (13–14 MB/s against
/// about 28 MB/s, release build, 1,000,000-row 80 MB export): it decodes UTF-8 one byte at a time
/// through three layers of iterator classes, each call paying retains and exclusivity checks. Both
/// parse with the same code (`readRow` over Unicode scalars).
public final class CSVRecordsReader: RecordReader {
    private let chunks: CSVRowChunks
    /// CSV.swift's reader for the current text of whole rows.
    private var csv: CSVReader?
    private enum State { case notOpened, reading, finished }
    private var state = State.notOpened
    /// For each column of the header, the slot it fills, or -1 when not requested.
    private var columnSlots: [Int] = []
    private var rowsRead = 0
    /// The positions of the fields of the row just read.
    private var positions: [CSVFieldPosition] = []

    /// `mapping` has no CSV options yet (the delimiter is `,`, the encoding UTF-8). `bufferSize` is
    /// the size of the chunks read from the source (small sizes exercise chunk boundaries in
    /// tests); `maximumRecordSize` bounds one row in bytes.
    public init(source: ByteSource, mapping: FeedMapping, bufferSize: Int = 1 << 16, maximumRecordSize: Int = 64 << 20) throws(FeedError) {
        chunks = CSVRowChunks(source: source, chunkSize: bufferSize, maximumRowSize: maximumRecordSize)
    }

    private var sourceName: String { chunks.source.name }
    public var progress: (read: Int, total: Int?) { (chunks.source.bytesRead, chunks.source.totalBytes) }

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        precondition(state == .notOpened, "open(requesting:) called twice")
        // The header is read as a row (not with CSV.swift's `hasHeaderRow`): empty lines before it
        // are skipped like any other, and its position is known.
        var header: [String]?
        while let (row, mark) = try nextRow() {
            if mark.blank { continue }
            header = row
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
        columnSlots = layout.slots
        state = .reading
        return FeedHeader(supplied: layout.supplied)
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard state == .reading else { return false }
        while true {
            guard let (row, mark) = try nextRow() else {
                state = .finished
                return false
            }
            if mark.blank { continue }
            guard row.count == columnSlots.count else {
                throw FeedError.shape(SourceLocation(source: sourceName, line: mark.line, column: 1, recordIndex: rowsRead),
                                      "the row at line \(mark.line) has \(row.count) field\(row.count == 1 ? "" : "s") but the header has \(columnSlots.count)")
            }
            record.reset()
            for column in row.indices {
                let slot = columnSlots[column]
                guard slot >= 0 else { continue }
                let start = record.bytes.count
                record.bytes.append(contentsOf: row[column].utf8)
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

    /// CSV.swift's next row with the scanner's mark for it (and its fields' positions in
    /// `positions`); nil at the end of the feed. Reports the scanner's error when CSV.swift reaches
    /// the row that holds it.
    private func nextRow() throws(FeedError) -> ([String], CSVRowMark)? {
        var row = csv?.next()
        while row == nil {
            guard let text = try chunks.next() else { break }
            do {
                csv = try CSVReader(string: text, hasHeaderRow: false)
            } catch {
                // Only thrown for a header row, which is not requested.
                throw FeedError.unreadable(path: sourceName, reason: "CSV.swift: \(error)")
            }
            row = csv?.next()
        }
        guard let mark = chunks.popRow(positions: &positions) else {
            if let error = chunks.scanner.error { throw located(error) }
            if let row {
                throw FeedError.syntax(chunks.scanLocation, expected: "the rows the scan found",
                                       found: "an extra row of \(row.count) fields from CSV.swift (please report this file)")
            }
            return nil
        }
        guard let row, row.count == mark.fieldCount else {
            throw FeedError.syntax(SourceLocation(source: sourceName, line: mark.line, column: 1, recordIndex: state == .reading ? rowsRead : nil),
                                   expected: "\(mark.fieldCount) fields as scanned",
                                   found: "\(row.map { "\($0.count)" } ?? "no") fields from CSV.swift (please report this file)")
        }
        return (row, mark)
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
