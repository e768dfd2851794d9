import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// The CNEOS fireball web table's CSV export (every field quoted, hemisphere glued to the number,
/// energy in joules).
let cneosCSVFeed = FeedMapping(
    name: "cneos-csv",
    entity: "Fireball",
    format: .csv,
    fields: [
        FieldMapping(attribute: "date", field: "Peak Brightness Date/Time (UT)", format: "%Y-%m-%d %H:%M:%S", timeZone: "UTC"),
        FieldMapping(attribute: "energy", field: "Total Radiated Energy (J)", emptyIsNull: true, scale: 1e-10),
        FieldMapping(attribute: "impact_energy", field: "Calculated Total Impact Energy (kt)", emptyIsNull: true),
        FieldMapping(attribute: "latitude", field: "Latitude (deg.)", emptyIsNull: true, sign: SignRule(field: nil, negative: ["S"], positive: ["N"])),
        FieldMapping(attribute: "longitude", field: "Longitude (deg.)", emptyIsNull: true, sign: SignRule(field: nil, negative: ["W"], positive: ["E"])),
        FieldMapping(attribute: "altitude", field: "Altitude (km)", emptyIsNull: true),
        FieldMapping(attribute: "velocity", field: "Velocity (km/s)", emptyIsNull: true),
        FieldMapping(attribute: "vx", field: "vx", emptyIsNull: true),
        FieldMapping(attribute: "vy", field: "vy", emptyIsNull: true),
        FieldMapping(attribute: "vz", field: "vz", emptyIsNull: true),
    ]
)

/// A raw field as a test sees it: its text and where it was.
private struct Field: Equatable, CustomStringConvertible {
    var text: String
    var line: Int32
    var column: Int32
    var description: String { "\(text)@\(line):\(column)" }
}

private struct Row: Equatable {
    var index: Int
    var line: Int
    var fields: [Field?]
}

/// Reads every record of a CSV feed at `path` (or `-`).
private func readFile(_ path: String, requesting fields: [String], bufferSize: Int = 1 << 16, maximumRecordSize: Int = 64 << 20) throws -> (FeedHeader, [Row]) {
    let reader = try CSVRecordsReader(source: try ByteSource(path: path), mapping: cneosCSVFeed, bufferSize: bufferSize, maximumRecordSize: maximumRecordSize)
    let header = try reader.open(requesting: fields)
    var record = RawRecord(slotCount: fields.count)
    var rows: [Row] = []
    while try reader.next(into: &record) {
        #expect(record.column == 1)
        rows.append(Row(index: record.index, line: record.line, fields: fields.indices.map { slot in
            let s = record.slots[slot]
            if s.kind == .absent { return nil }
            #expect(s.kind == .string)
            return Field(text: record.text(of: slot), line: s.line, column: s.column)
        }))
    }
    #expect(try reader.next(into: &record) == false)
    return (header, rows)
}

/// Reads every record of a CSV text (bytes, for BOMs and invalid UTF-8).
private func readAll(_ bytes: [UInt8], requesting fields: [String], bufferSize: Int = 1 << 16, maximumRecordSize: Int = 64 << 20) throws -> (FeedHeader, [Row]) {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("feed.csv")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return try readFile(path, requesting: fields, bufferSize: bufferSize, maximumRecordSize: maximumRecordSize)
}

private func readAll(_ text: String, requesting fields: [String], bufferSize: Int = 1 << 16) throws -> (FeedHeader, [Row]) {
    try readAll(Array(text.utf8), requesting: fields, bufferSize: bufferSize)
}

private func texts(_ rows: [Row]) -> [[String?]] {
    rows.map { $0.fields.map { $0?.text } }
}

/// Imports `path` with `mapping` into a fresh store and returns the fireball rows without `id`.
private func importRows(_ path: String, mapping: FeedMapping, directory: TemporaryDirectory, name: String) throws -> [[String: Value]] {
    let storePath = directory.path(name)
    let store = try Store(path: storePath)
    var options = ImportOptions(author: "test", context: "test")
    options.replayViews = false
    let session = ImportSession(store: store, model: Model(entities: [FireballModel.entity], feeds: [mapping]), options: options)
    let result = try session.run([FeedInput(path: path, mapping: mapping)])
    #expect(result.rejects.isEmpty)
    return try fireballRows(storePath).map { $0.filter { $0.key != "id" } }
}

@Suite struct CSVRecordsReaderTests {
    static let cneosColumns = cneosCSVFeed.fields.compactMap(\.field)

    // MARK: The sample

    @Test func readsTheCNEOSSample() throws {
        let fields = ["Peak Brightness Date/Time (UT)", "Latitude (deg.)", "Total Radiated Energy (J)", "vx", "not a column"]
        let (header, rows) = try readFile(sample("csv/cneos-fireball-2024.csv"), requesting: fields)
        #expect(header.supplied == [true, true, true, true, false])
        #expect(header.declaredCount == nil)
        #expect(rows.count == 10)
        #expect(rows.map(\.index) == Array(0..<10))
        #expect(rows.map(\.line) == Array(2...11))
        #expect(rows[0].fields == [
            Field(text: "2024-09-04 16:39:40", line: 2, column: 1), Field(text: "18.0N", line: 2, column: 23),
            Field(text: "4.5e10", line: 2, column: 63), Field(text: "", line: 2, column: 54), nil,
        ])
        #expect(texts(rows)[3] == ["2024-03-02 11:05:20", "", "3.2e10", "", nil])
    }

    @Test func importsTheSameCatalogueAsTheAPIFeed() throws {
        #expect(Model(entities: [FireballModel.entity], feeds: [cneosCSVFeed]).validate() == [])
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let fromCSV = try importRows(sample("csv/cneos-fireball-2024.csv"), mapping: cneosCSVFeed, directory: directory, name: "csv.sqlite")
        let fromAPI = try importRows(sample("fireball-2024.json"), mapping: FireballModel.apiFeed, directory: directory, name: "api.sqlite")
        #expect(fromCSV.count == 10)
        #expect(fromCSV.count == fromAPI.count)
        // Every attribute but energy is parsed from the same decimal text: exactly equal.
        #expect(fromCSV.map { $0.filter { $0.key != "energy" } } == fromAPI.map { $0.filter { $0.key != "energy" } })
        // Energy: the CSV has joules ("1.9e10") and the mapping scales by 1e-10. This holds only when
        // the mapper scales by powers of ten exactly (in the decimal exponent): a plain
        // multiplication gives 1.9e10 * 1e-10 = 1.9000000000000001 != 1.9 (one row of the sample).
        for (csv, api) in zip(fromCSV, fromAPI) {
            #expect(csv["energy"] == api["energy"], "energy of \(api["date"] ?? .null): power-of-ten scale must be exact")
        }
        #expect(fromCSV.first?["latitude"] == .real(-8.7))
        #expect(fromCSV.first?["longitude"] == .real(173.3))
        #expect(fromCSV.first?["vx"] == .null)
    }

    // MARK: RFC 4180

    @Test func readsQuotedDelimitersQuotesAndLineEnds() throws {
        let text = "name,note,n\n"
            + "plain,\"a, b\",1\n"
            + "\"say \"\"hi\"\"\",\"two\nlines\",2\n"
            + "\"\",,\"\"\n"
            + "\"crlf\r\ninside\",\"\"\"\",3\n"
            + "after,x\"y,4"
        let (_, rows) = try readAll(text, requesting: ["name", "note", "n"])
        #expect(texts(rows) == [
            ["plain", "a, b", "1"],
            ["say \"hi\"", "two\nlines", "2"],
            ["", "", ""],
            ["crlf\r\ninside", "\"", "3"],
            ["after", "x\"y", "4"],
        ])
        #expect(rows.map(\.line) == [2, 3, 5, 6, 8])
        #expect(rows[1].fields.map { $0!.column } == [1, 14, 8])
        #expect(rows[1].fields.map { $0!.line } == [3, 3, 4])
        #expect(rows[3].fields.map { $0!.line } == [6, 7, 7])
        #expect(rows[4].fields.map { $0!.column } == [1, 7, 11])
    }

    @Test func handlesBOMAndLineEnds() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = "\"a\",b\r\n1,2\r\n\"3\",\"4\"\r\n"
        let (header, rows) = try readAll(bom + Array(body.utf8), requesting: ["a", "b"])
        #expect(header.supplied == [true, true])
        #expect(texts(rows) == [["1", "2"], ["3", "4"]])
        #expect(rows.map(\.line) == [2, 3])
        // Lone CRs end lines too; a last row without a line end is read.
        let (_, crRows) = try readAll("a,b\r1,2\r3,4", requesting: ["a", "b"])
        #expect(texts(crRows) == [["1", "2"], ["3", "4"]])
        #expect(crRows.map(\.line) == [2, 3])
    }

    @Test func nonASCIIText() throws {
        let (_, rows) = try readAll("ville,pays\nZürich,\"Suisse, 🇨🇭\"\n", requesting: ["ville", "pays"])
        #expect(texts(rows) == [["Zürich", "Suisse, 🇨🇭"]])
        #expect(rows[0].fields[1]?.column == 9)
    }

    @Test func skipsEmptyLines() throws {
        let (_, rows) = try readAll("\n\na,b\n1,2\n\n\r\n3,4\n\n", requesting: ["a", "b"])
        #expect(texts(rows) == [["1", "2"], ["3", "4"]])
        #expect(rows.map(\.line) == [4, 7])
        #expect(rows.map(\.index) == [0, 1])
        // A quoted empty field is a value, not an empty line.
        let (_, single) = try readAll("a\n\"\"\n\nx\n", requesting: ["a"])
        #expect(texts(single) == [[""], ["x"]])
    }

    @Test(arguments: ["\r\n", "\n", "\r"])
    func chunkBoundariesDoNotMatter(lineEnd: String) throws {
        var text = "\u{FEFF}id,\"the note\",é" + lineEnd
        for i in 0..<40 {
            text += "\(i),\"line \(i), \"\"quoted\"\"\(lineEnd)next\",ü\(i)" + lineEnd
            if i % 7 == 0 { text += lineEnd }
        }
        let fields = ["the note", "é", "id"]
        let (_, expected) = try readAll(text, requesting: fields)
        #expect(expected.count == 40)
        #expect(expected.first?.fields == [Field(text: "line 0, \"quoted\"\(lineEnd)next", line: 2, column: 3), Field(text: "ü0", line: 3, column: 7), Field(text: "0", line: 2, column: 1)])
        #expect(expected.last?.line == 2 + 39 * 2 + 6)
        for size in [1, 2, 3, 5, 7, 64] {
            let (_, rows) = try readAll(text, requesting: fields, bufferSize: size)
            #expect(rows == expected, "buffer size \(size)")
        }
    }

    @Test func manyRowsKeepTheirPositions() throws {
        // More rows than one chunk holds, so that the scanner's queues are compacted while reading.
        var text = "k,v\n"
        var expected: [Row] = []
        var line = 2
        for i in 0..<30_000 {
            let value = i % 10 == 0 ? "\"a\nb\"" : "v\(i % 7)"
            text += "\(i),\(value)\n"
            let column = Int32(String(i).utf8.count + 2)
            expected.append(Row(index: i, line: line, fields: [
                Field(text: String(i), line: Int32(line), column: 1),
                Field(text: i % 10 == 0 ? "a\nb" : "v\(i % 7)", line: Int32(line), column: column),
            ]))
            line += i % 10 == 0 ? 2 : 1
        }
        for size in [4096, 1 << 16] {
            let (_, rows) = try readAll(text, requesting: ["k", "v"], bufferSize: size)
            #expect(rows.count == expected.count)
            #expect(rows == expected, "buffer size \(size)")
        }
    }

    @Test func roundTripsRandomTables() throws {
        // Random tables written with RFC 4180 quoting and random line ends, read back: the values,
        // the record lines and the field positions must be those of the text written.
        var random = SplitMix64(seed: 0xC5F)
        let alphabet: [String] = ["a", "b", "Z", "0", " ", ",", "\"", "\n", "\r", "\r\n", "é", "🇨🇭", "\t", "'"]
        for table in 0..<150 {
            let columnCount = 1 + Int(random.next() % 4)
            let names = (0..<columnCount).map { "c\($0)" }
            var text = names.joined(separator: ",")
            var rows: [[String]] = []
            var expectedLines: [Int] = []
            var expectedColumns: [[Int32]] = []
            func lineBreaks(_ s: String) -> Int {
                var count = 0
                var previous: UInt8 = 0
                for byte in s.utf8 {
                    if byte == 0x0D || (byte == 0x0A && previous != 0x0D) { count += 1 }
                    previous = byte
                }
                return count
            }
            for _ in 0..<Int(random.next() % 12) {
                text += ["\n", "\r\n", "\r"][Int(random.next() % 3)]
                let line = 1 + lineBreaks(text)
                let lastLineStart = text.utf8.lastIndex { $0 == 0x0A || $0 == 0x0D }.map { text.utf8.distance(from: text.utf8.startIndex, to: $0) + 1 } ?? 0
                var columns: [Int32] = []
                var row: [String] = []
                for column in 0..<columnCount {
                    let value = (0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
                    row.append(value)
                    if column > 0 { text += "," }
                    columns.append(Int32(text.utf8.count - lastLineStart + 1))
                    let mustQuote = value.isEmpty || value.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
                    if mustQuote || random.next() % 4 == 0 {
                        text += "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    } else {
                        text += value
                    }
                }
                rows.append(row)
                expectedLines.append(line)
                expectedColumns.append(columns)
            }
            if random.next() % 2 == 0 { text += "\r\n" }
            let size = [1, 3, 16, 1 << 16][Int(random.next() % 4)]
            let (_, read) = try readAll(text, requesting: names, bufferSize: size)
            #expect(texts(read) == rows, "table \(table)")
            #expect(read.map(\.line) == expectedLines, "table \(table)")
            // Columns on the row's first line (a quoted line end moves the later fields to other lines).
            #expect(read.map { $0.fields.first??.column } == expectedColumns.map { $0.first }, "table \(table)")
            for (row, columns) in zip(read, expectedColumns) {
                for (field, column) in zip(row.fields, columns) where field?.line == Int32(row.line) {
                    #expect(field?.column == column, "table \(table)")
                }
            }
        }
    }

    // MARK: Header

    @Test func headerOnlyIsAnEmptyFeed() throws {
        let (header, rows) = try readAll("\"a\",\"b\"\r\n", requesting: ["b", "c"])
        #expect(header.supplied == [true, false])
        #expect(rows.isEmpty)
        let (_, noLineEnd) = try readAll("a,b", requesting: ["a"])
        #expect(noLineEnd.isEmpty)
    }

    @Test func emptyFileHasNoHeader() throws {
        for bytes in [[], [0xEF, 0xBB, 0xBF], Array("\n\r\n".utf8)] as [[UInt8]] {
            guard case .shape(let location, let message)? = feedError({ _ = try readAll(bytes, requesting: ["a"]) }) else {
                Issue.record("expected a shape error for \(bytes)")
                continue
            }
            #expect(message.contains("no header row"))
            #expect(location.line == 1)
        }
    }

    @Test func duplicateHeaderNamesAreAShapeError() {
        guard case .shape(let location, let message)? = feedError({ _ = try readAll("a,b,\"a\"\n1,2,3\n", requesting: ["a"]) }) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(message.contains("'a' appears twice"))
        #expect(location.line == 1)
        #expect(location.column == 5)
    }

    // MARK: Errors

    @Test func missingFieldSampleIsALocatedShapeError() {
        guard case .shape(let location, let message)? = feedError({ _ = try readFile(sample("csv/malformed/missing-field.csv"), requesting: Self.cneosColumns) }) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(location.source.hasSuffix("missing-field.csv"))
        #expect(location.line == 4)
        #expect(location.recordIndex == 2)
        #expect(message.contains("line 4"))
        #expect(message.contains("9 fields"))
        #expect(message.contains("header has 10"))
    }

    @Test func unterminatedQuoteSampleIsALocatedSyntaxError() {
        guard case .syntax(let location, let expected, let found)? = feedError({ _ = try readFile(sample("csv/malformed/unterminated-quote.csv"), requesting: Self.cneosColumns) }) else {
            Issue.record("expected a syntax error")
            return
        }
        // At the opening quote of the last field of line 4.
        #expect(location.line == 4)
        #expect(location.column == 63)
        #expect(location.recordIndex == 2)
        #expect(expected.contains("closing quote"))
        #expect(found.contains("end of the input"))
    }

    @Test func malformedSamplesFailTheImport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for name in ["missing-field.csv", "unterminated-quote.csv"] {
            let store = try Store(path: directory.path("\(name).sqlite"))
            var options = ImportOptions(author: "test", context: "test")
            options.replayViews = false
            let session = ImportSession(store: store, model: Model(entities: [FireballModel.entity], feeds: [cneosCSVFeed]), options: options)
            do {
                _ = try session.run([FeedInput(path: sample("csv/malformed/" + name), mapping: cneosCSVFeed)])
                Issue.record("\(name): expected the import to fail")
            } catch {
                guard case .feed(let feedError) = error else {
                    Issue.record("\(name): expected a feed error, got \(error)")
                    continue
                }
                #expect(feedError.location?.line == 4)
            }
        }
    }

    @Test func rowLengthMismatchNamesLineAndCounts() {
        guard case .shape(let location, let message)? = feedError({ _ = try readAll("a,b\n1,2\n\"x\ny\",2,3\n", requesting: ["a"]) }) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(location.line == 3)
        #expect(location.recordIndex == 1)
        #expect(message == "the row at line 3 has 3 fields but the header has 2")
    }

    @Test func characterAfterClosingQuoteIsASyntaxError() {
        guard case .syntax(let location, _, let found)? = feedError({ _ = try readAll("a,b\n1,2\n\"ab\"x,2\n", requesting: ["a"]) }) else {
            Issue.record("expected a syntax error")
            return
        }
        #expect(location.line == 3)
        #expect(location.column == 5)
        #expect(location.recordIndex == 1)
        #expect(found == "'x'")
    }

    @Test func invalidUTF8IsALocatedSyntaxError() {
        let cases: [([UInt8], line: Int, column: Int, found: String)] = [
            (Array("a,b\n1,x".utf8) + [0xFF] + Array("\n".utf8), 2, 4, "byte 0xFF"),
            (Array("a,b\n1,2\n\"é".utf8) + [0xC3, 0x28] + Array("\",3\n".utf8), 3, 4, "the bytes 0xC3 0x28"),
            (Array("a,b\n1,".utf8) + [0xE2, 0x82], 2, 3, "the bytes 0xE2 0x82 (a truncated sequence at the end of the input)"),
            ([0xED, 0xA0, 0x80] + Array(",b\n".utf8), 1, 1, "the bytes 0xED 0xA0"),
        ]
        for (bytes, line, column, found) in cases {
            for size in [1, 1 << 16] {
                guard case .syntax(let location, let expected, let foundText)? = feedError({ _ = try readAll(bytes, requesting: ["a", "b"], bufferSize: size) }) else {
                    Issue.record("expected a syntax error for \(bytes)")
                    continue
                }
                #expect(expected == "valid UTF-8")
                #expect(location.line == line)
                #expect(location.column == column)
                #expect(foundText == found)
            }
        }
    }

    @Test func rowsBeforeAnErrorAreRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("feed.csv", "a\n1\n2\n\"3\n")
        let reader = try CSVRecordsReader(source: try ByteSource(path: path), mapping: cneosCSVFeed)
        _ = try reader.open(requesting: ["a"])
        var record = RawRecord(slotCount: 1)
        #expect(try reader.next(into: &record))
        #expect(record.text(of: 0) == "1")
        #expect(try reader.next(into: &record))
        #expect(record.text(of: 0) == "2")
        #expect(throws: FeedError.self) { _ = try reader.next(into: &record) }
    }

    @Test func rowsLargerThanTheLimitAreRefused() {
        let text = "a,b\n1,2\n\"" + String(repeating: "x", count: 10_000) + "\",3\n"
        guard case .recordTooLarge(let location, let limit)? = feedError({ _ = try readAll(Array(text.utf8), requesting: ["a"], bufferSize: 512, maximumRecordSize: 4096) }) else {
            Issue.record("expected recordTooLarge")
            return
        }
        #expect(limit == 4096)
        #expect(location.line == 3)
        #expect(location.recordIndex == 1)
    }

    // MARK: Standard input

    @Test func readsStandardInput() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sample("csv/cneos-fireball-2024.csv")))
        #expect(bytes.count < 60_000, "must fit in a pipe's buffer")
        var pipe: [Int32] = [0, 0]
        #expect(Foundation.pipe(&pipe) == 0)
        _ = bytes.withUnsafeBytes { write(pipe[1], $0.baseAddress, $0.count) }
        close(pipe[1])
        let savedStdin = dup(STDIN_FILENO)
        dup2(pipe[0], STDIN_FILENO)
        close(pipe[0])
        defer {
            dup2(savedStdin, STDIN_FILENO)
            close(savedStdin)
        }
        let (header, rows) = try readFile("-", requesting: Self.cneosColumns)
        let (_, fromFile) = try readFile(sample("csv/cneos-fireball-2024.csv"), requesting: Self.cneosColumns)
        #expect(header.supplied.allSatisfy { $0 })
        #expect(rows.count == 10)
        #expect(rows == fromFile)
    }
}
