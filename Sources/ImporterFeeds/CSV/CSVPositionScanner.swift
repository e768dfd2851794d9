import ImporterModel

/// Where one row of a CSV feed is, as `CSVPositionScanner` found it.
struct CSVRowMark {
    /// 1-based line of the row's first byte.
    var line: Int
    var fieldCount: Int
    /// An empty line (no byte at all, not even `""`): the reader skips it.
    var blank: Bool
}

/// Line and column (in bytes, 1-based) of a field's first byte.
struct CSVFieldPosition {
    var line: Int32
    var column: Int32
}

/// Scans CSV bytes as they are read: checks them, records where each row and field starts, and
/// says where the input can be cut between rows.
///
/// A small state machine over RFC 4180 (LF, CRLF or CR line ends; `""` inside quoted fields; a
/// quote inside an unquoted field taken literally) that records for each row its line and each
/// field's line and column (line ends inside quoted fields are counted). It stops at the first
/// problem (invalid UTF-8, a character after a closing quote, an unterminated quote at the end, a
/// row larger than the limit), which CSV splitters commonly accept silently; rows before it are
/// whole and valid, so `CSVRecordsReader` splits them without checking again and pairs the n-th
/// mark with the n-th row.
///
/// Plain state in a struct: scanning a chunk is one access to its owner's state, not one per field.
struct CSVPositionScanner {
    let sourceName: String
    /// The largest row accepted, in bytes (a row is held in memory whole, and an unterminated quote
    /// early in a large file would otherwise make one row of the rest of it).
    let maximumRowSize: Int
    /// The first problem found; rows before it are complete and valid.
    private(set) var error: FeedError?
    /// The line of the last row when the input ended inside it without a line end, its last field
    /// unquoted: a download cut short ends this way, and that field may be cut.
    private(set) var unterminatedLine: Int?

    private enum State: UInt8 {
        /// Before the first byte of a row.
        case rowStart
        /// Before the first byte of a row, just after a CR that ended a row (an LF here is part of it).
        case rowStartAfterCR
        /// At the start of a field after a delimiter.
        case fieldStart
        case unquoted
        case quoted
        /// Just after a quote inside a quoted field: a second quote, a delimiter or a line end must follow.
        case closingQuote
    }

    private var state = State.rowStart
    private var line = 1
    /// Absolute offset of the first byte of the current line.
    private var lineStart = 0
    /// The previous byte was a CR (a following LF ends the same line).
    private var afterCR = false
    private var rowLine = 1
    private var rowOffset = 0
    /// Index in `fields` of the first field of the row being scanned.
    private var rowFirstField = 0
    /// Continuation bytes still expected in a UTF-8 sequence, and the bounds of the next one.
    private var utf8Remaining = 0
    private var utf8Low: UInt8 = 0x80
    private var utf8High: UInt8 = 0xBF
    /// Where the current UTF-8 sequence started, and its bytes so far (for messages).
    private var utf8LeadLine = 0
    private var utf8LeadColumn = 0
    private var utf8Bytes: UInt32 = 0
    private var utf8ByteCount = 0
    /// The byte between fields (`,` unless the mapping's dialect says otherwise).
    let delimiter: UInt8

    /// Complete rows not yet taken, from `markHead` on.
    private var marks: [CSVRowMark] = []
    private var markHead = 0
    /// Field positions of the rows in `marks` from `markHead` on, then of the row being scanned.
    private var fields: [CSVFieldPosition] = []
    private var fieldHead = 0

    init(sourceName: String, maximumRowSize: Int, delimiter: UInt8 = UInt8(ascii: ",")) {
        self.sourceName = sourceName
        self.maximumRowSize = maximumRowSize
        self.delimiter = delimiter
    }

    /// The input started with a byte order mark (3 bytes, not handed to the reader): columns count
    /// from the byte after it.
    mutating func startAfterByteOrderMark() {
        lineStart = 3
    }

    /// The next complete row's mark, in file order, with its fields' positions in `positions`; nil
    /// when no other row is complete.
    mutating func popRow(positions: inout [CSVFieldPosition]) -> CSVRowMark? {
        guard markHead < marks.count else {
            if markHead > 0 {
                marks.removeAll(keepingCapacity: true)
                markHead = 0
            }
            return nil
        }
        let mark = marks[markHead]
        markHead += 1
        positions.removeAll(keepingCapacity: true)
        positions.append(contentsOf: fields[fieldHead..<fieldHead + mark.fieldCount])
        fieldHead += mark.fieldCount
        if markHead >= 1024 && markHead * 2 >= marks.count {
            marks.removeFirst(markHead)
            markHead = 0
            fields.removeFirst(fieldHead)
            rowFirstField -= fieldHead
            fieldHead = 0
        }
        return mark
    }

    /// The absolute offset before which every row is complete, given that bytes up to `end` have
    /// been scanned: the start of the row being scanned, or `end` between rows. A row ended by a CR
    /// is held back until the next byte shows whether an LF belongs to its line end.
    func cut(scannedTo end: Int) -> Int {
        state == .rowStart ? end : rowOffset
    }

    func location(at offset: Int) -> SourceLocation {
        SourceLocation(source: sourceName, line: line, column: offset - lineStart + 1)
    }

    /// Scans `count` bytes at absolute `offset`; returns how many are valid (all, unless the scan
    /// stopped on a problem). The steps below are inlined: this is the CSV reader's hot loop.
    mutating func scan(_ bytes: UnsafePointer<UInt8>, count: Int, offset: Int) -> Int {
        guard error == nil else { return 0 }
        var i = 0
        while i < count {
            let byte = bytes[i]
            let at = offset + i
            if utf8Remaining > 0 {
                // A continuation byte: part of a field's text, nothing for rows or lines.
                if let problem = continueUTF8(byte) { return stop(i, problem) }
                i += 1
                continue
            }
            if byte >= 0x80, let problem = beginUTF8(byte, at: at) { return stop(i, problem) }
            if let problem = advanceFields(byte, at: at) { return stop(i, problem) }
            countLines(byte, at: at)
            i += 1
        }
        if state != .rowStart && state != .rowStartAfterCR && offset + count - rowOffset > maximumRowSize {
            error = .recordTooLarge(SourceLocation(source: sourceName, line: rowLine, column: 1), limit: maximumRowSize)
        }
        return count
    }
    /// A continuation byte of the UTF-8 sequence being read.
    @inline(__always)
    private mutating func continueUTF8(_ byte: UInt8) -> FeedError? {
        addUTF8Byte(byte)
        guard byte >= utf8Low && byte <= utf8High else { return invalidUTF8(truncated: false) }
        utf8Remaining -= 1
        utf8Low = 0x80
        utf8High = 0xBF
        return nil
    }

    /// The lead byte of a UTF-8 sequence (then read as text by the field state machine).
    @inline(__always)
    private mutating func beginUTF8(_ byte: UInt8, at: Int) -> FeedError? {
        if let lead = UTF8Lead(byte) {
            utf8Remaining = lead.continuations
            utf8Low = lead.low
            utf8High = lead.high
        } else {
            utf8Remaining = 0
        }
        utf8LeadLine = line
        utf8LeadColumn = at - lineStart + 1
        utf8Bytes = 0
        utf8ByteCount = 0
        addUTF8Byte(byte)
        return utf8Remaining == 0 ? invalidUTF8(truncated: false) : nil
    }

    /// Rows and fields: one byte through the state machine (positions are taken before the byte's
    /// own line accounting).
    @inline(__always)
    private mutating func advanceFields(_ byte: UInt8, at: Int) -> FeedError? {
        let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r"), quote = UInt8(ascii: "\"")
        switch state {
        case .rowStartAfterCR where byte == lf:
            state = .rowStart
        case .rowStart, .rowStartAfterCR:
            rowLine = line
            rowOffset = at
            rowFirstField = fields.count
            beginField(column: at - lineStart + 1)
            if byte == lf || byte == cr {
                endRow(blank: true)
                state = byte == cr ? .rowStartAfterCR : .rowStart
            } else if byte == delimiter {
                beginField(column: at - lineStart + 2)
                state = .fieldStart
            } else {
                state = byte == quote ? .quoted : .unquoted
            }
        case .fieldStart:
            if byte == quote {
                state = .quoted
            } else if byte == delimiter {
                beginField(column: at - lineStart + 2)
            } else if byte == lf || byte == cr {
                endRow(blank: false)
                state = byte == cr ? .rowStartAfterCR : .rowStart
            } else {
                state = .unquoted
            }
        case .unquoted:
            if byte == delimiter {
                beginField(column: at - lineStart + 2)
                state = .fieldStart
            } else if byte == lf || byte == cr {
                endRow(blank: false)
                state = byte == cr ? .rowStartAfterCR : .rowStart
            }
        case .quoted:
            if byte == quote { state = .closingQuote }
        case .closingQuote:
            if byte == quote {
                state = .quoted
            } else if byte == delimiter {
                beginField(column: at - lineStart + 2)
                state = .fieldStart
            } else if byte == lf || byte == cr {
                endRow(blank: false)
                state = byte == cr ? .rowStartAfterCR : .rowStart
            } else {
                let location = SourceLocation(source: sourceName, line: line, column: at - lineStart + 1)
                return .syntax(location, expected: "'\(delimiter == 0x09 ? "\\t" : String(UnicodeScalar(delimiter)))' or the end of the line after the closing quote of a field (a quote inside a quoted field is written \"\")",
                               found: describe(byte))
            }
        }
        return nil
    }

    /// Lines: CR, LF and CRLF each end one line, inside quoted fields too.
    @inline(__always)
    private mutating func countLines(_ byte: UInt8, at: Int) {
        if byte == UInt8(ascii: "\n") {
            if !afterCR { line += 1 }
            lineStart = at + 1
            afterCR = false
        } else if byte == UInt8(ascii: "\r") {
            line += 1
            lineStart = at + 1
            afterCR = true
        } else {
            afterCR = false
        }
    }

    /// At the end of the input: completes the last row, or reports what is left open.
    mutating func finish() {
        guard error == nil else { return }
        if utf8Remaining > 0 {
            error = invalidUTF8(truncated: true)
            return
        }
        switch state {
        case .rowStart, .rowStartAfterCR:
            break
        case .quoted:
            let opening = fields[fields.count - 1]
            error = .syntax(SourceLocation(source: sourceName, line: Int(opening.line), column: Int(opening.column)),
                            expected: "a closing quote for the quoted field that starts here", found: "the end of the input")
        case .fieldStart, .unquoted, .closingQuote:
            // A closing quote shows the last field whole; an unquoted one may have been cut.
            if state != .closingQuote { unterminatedLine = rowLine }
            endRow(blank: false)
            state = .rowStart
        }
    }

    @inline(__always)
    private mutating func beginField(column: Int) {
        fields.append(CSVFieldPosition(line: Int32(truncatingIfNeeded: line), column: Int32(truncatingIfNeeded: column)))
    }

    /// Completes the row being scanned.
    @inline(__always)
    private mutating func endRow(blank: Bool) {
        marks.append(CSVRowMark(line: rowLine, fieldCount: fields.count - rowFirstField, blank: blank))
    }

    /// Records `problem` and ends the valid input before byte `index` of the chunk being scanned.
    private mutating func stop(_ index: Int, _ problem: FeedError) -> Int {
        error = problem
        return index
    }

    @inline(__always)
    private mutating func addUTF8Byte(_ byte: UInt8) {
        utf8Bytes = utf8Bytes << 8 | UInt32(byte)
        utf8ByteCount += 1
    }

    private func invalidUTF8(truncated: Bool) -> FeedError {
        let bytes = (0..<utf8ByteCount).map { UInt8(truncatingIfNeeded: utf8Bytes >> (8 * (utf8ByteCount - 1 - $0))) }
        let found = bytes.count == 1 ? "byte " + UTF8Lead.hex(bytes[0])
            : "the bytes " + bytes.map(UTF8Lead.hex).joined(separator: " ") + (truncated ? " (a truncated sequence at the end of the input)" : "")
        return .syntax(SourceLocation(source: sourceName, line: utf8LeadLine, column: utf8LeadColumn), expected: "valid UTF-8", found: found)
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(UnicodeScalar(byte)))'"
        case 0x20: "a space"
        case 0x09: "a tab"
        default: "byte " + UTF8Lead.hex(byte)
        }
    }
}
