import ImporterTestSupport
import Foundation
import ImporterModel
@testable import ImporterStorePostgres
import PostgresTestSupport
import Testing

/// The binary COPY rows the PostgreSQL backend loads feeds with: encoded as the server keeps the
/// values, sent through postgres-nio's text-only `copyFrom` (`CopyQueue.copyTarget`), read back
/// bit for bit on a real server; a batch holding a value of another type goes as text.
@Suite struct CopyBinaryTests {
    private static let columns: [CopyBinary.Column] = [.bigint, .double, .text, .text]

    /// A batch of `rows` (`.text` values given as strings, or as raw bytes).
    private static func batch(_ rows: [[Any?]]) -> RecordBatch {
        var batch = RecordBatch(columns: Array(0..<(rows.first?.count ?? 0)), keyPositions: [0])
        for (index, row) in rows.enumerated() {
            for value in row {
                switch value {
                case let integer as Int64: batch.append(.integer(integer))
                case let real as Double: batch.append(.real(real))
                case let text as String: batch.append(batch.appendText(text, count: text.utf8.count))
                case let bytes as [UInt8]: batch.append(batch.appendText { $0.append(contentsOf: bytes); return true } ?? .null)
                default: batch.append(.null)
                }
            }
            batch.commitRecord(RecordOrigin(recordIndex: index, line: Int32(index + 1), column: 1))
        }
        return batch
    }

    private static func encode(_ batch: RecordBatch, columns: [CopyBinary.Column] = columns) -> (bytes: [UInt8], encoded: Bool, sawNUL: Bool) {
        var rows = CopyBinary()
        let encoded = batch.arena.withUnsafeBufferPointer { arena in
            (0..<batch.count).allSatisfy { record in
                rows.beginRow(fields: batch.width)
                return rows.appendRecord(record, of: batch, columns: columns, arena: arena.baseAddress ?? emptyBytes)
            }
        }
        return (Array(buffer: rows.buffer), encoded, rows.sawNUL)
    }

    @Test func aRowIsWrittenAsTheServerKeepsItsValues() {
        let row = Self.encode(Self.batch([[Int64(-2), 1.5, "ab", nil]]))
        #expect(row.encoded && !row.sawNUL)
        #expect(row.bytes == [0, 4]  // four fields
            + [0, 0, 0, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]  // bigint -2
            + [0, 0, 0, 8, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]  // 1.5
            + [0, 0, 0, 2, 0x61, 0x62]  // "ab"
            + [0xFF, 0xFF, 0xFF, 0xFF])  // NULL
        #expect(CopyBinary.header == Array("PGCOPY\n\u{FF}\r\n\0".unicodeScalars.map { UInt8($0.value) }) + [0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func aValueOfAnotherTypeThanItsColumnIsNotEncoded() {
        #expect(!Self.encode(Self.batch([[1.5, 1.5, "a", "b"]])).encoded)  // a real in a bigint column
        #expect(!Self.encode(Self.batch([[Int64(1), "1.5", "a", "b"]])).encoded)  // text in a double column
        #expect(!Self.encode(Self.batch([[Int64(1), 1.5, Int64(3), "b"]])).encoded)  // an integer in a text column
        // An integer in a double column is its nearest double, as the server reads its decimal form.
        let widened = Self.encode(Self.batch([[Int64(1), Int64(9_007_199_254_740_993), "a", "b"]]))
        #expect(widened.encoded && Array(widened.bytes[18..<26]) == withUnsafeBytes(of: Double(9_007_199_254_740_993).bitPattern.bigEndian, Array.init))
    }

    @Test func textIsWrittenAsTheTextFormatWouldHaveIt() {
        let invalid = Self.encode(Self.batch([[Int64(1), 1.0, [0x61, 0xFF, 0x62] as [UInt8], "ok"]]))
        #expect(invalid.encoded && !invalid.sawNUL)
        #expect(Array(invalid.bytes[26..<35]) == [0, 0, 0, 5, 0x61, 0xEF, 0xBF, 0xBD, 0x62])  // U+FFFD, as String(decoding:) gives it
        let nul = Self.encode(Self.batch([[Int64(1), 1.0, "a\u{0}b", "ok"]]))
        #expect(nul.encoded && nul.sawNUL)
        #expect(Array(nul.bytes[26..<32]) == [0, 0, 0, 2, 0x61, 0x62])
    }

    @Test func aServerReadsBackEveryValueExactly() throws {
        let cluster = try PostgresTestCluster.start()
        let connection = try BlockingConnection.connect(to: try PostgresLocation(parsing: try cluster.newStoreURL()))
        defer { connection.close() }
        // Names a COPY statement must quote: a double quote, a line break, a keyword, upper case.
        try connection.execute("CREATE TEMP TABLE \"odd\n\"\"table\"\"\" (\"n\" bigint, \"we\"\"ird\" double precision, \"type\" text, \"Upper\" text)")
        var random = SplitMix64(seed: 9)
        let texts = ["plain", "tab\there", "new\nline", "back\\slash", "cr\rlf", "\\N", "", "ünïcode ✓", "a\t\\\n\r", "--", "\")"]
        var rows: [[Any?]] = []
        for n in 0..<5_000 {
            let real: Double? = n % 7 == 0 ? nil : CopyTextTests.randomDouble(&random)
            rows.append([Int64(n), real, texts[n % texts.count], n % 5 == 0 ? nil : [Int64.min, Int64.max, -1, 0][n % 4].description])
        }
        let batch = Self.batch(rows)
        let encoded = Self.encode(batch)
        #expect(encoded.encoded)
        // Two sends gather into one chunk; the header and trailer are the queue's.
        let half = Self.encode(Self.batch(Array(rows[..<2_500]))).bytes, rest = Self.encode(Self.batch(Array(rows[2_500...]))).bytes
        try connection.copy(into: "odd\n\"table\"", columns: ["n", #"we"ird"#, "type", "Upper"], binary: true, data: .init(bytes: half))
        try connection.copy(into: "odd\n\"table\"", columns: ["n", #"we"ird"#, "type", "Upper"], binary: true, data: .init(bytes: rest))
        let stored = try connection.rows("SELECT \"n\", \"we\"\"ird\", \"type\", \"Upper\" FROM \"odd\n\"\"table\"\"\" ORDER BY \"n\"")
        #expect(stored.count == rows.count)
        for (row, wanted) in zip(stored, rows) {
            #expect(row[0] == .integer(wanted[0] as? Int64 ?? -1))
            switch (row[1], wanted[1] as? Double) {
            case (.real(let value), let real?): #expect(value.bitPattern == real.bitPattern || (value.isNaN && real.isNaN), "\(value) against \(real)")
            case (.null, nil): break
            default: Issue.record("\(row[1]) against \(String(describing: wanted[1]))")
            }
            #expect(row[2] == .text(wanted[2] as? String ?? ""))
            #expect(row[3] == ((wanted[3] as? String).map(Value.text) ?? .null))
        }
    }

    @Test func aBatchWithAValueOfAnotherTypeIsCopiedAsText() throws {
        let entity = EntityDescription(name: "Reading", tableName: "reading", attributes: [
            AttributeDescription(name: "at", type: .text),
            AttributeDescription(name: "level", type: .real),
        ], uniqueKey: ["at"], tombstoneAttributes: [])
        var batch = Self.batch([["2026-01-01", 2.5], ["2026-01-02", "7.25"]])
        batch.feed = 0
        let rows = try PostgresImportTransaction.copyRows(batch, [0, 1], of: entity, columns: [0, 1])
        #expect(!rows.binary)
        #expect(String(decoding: Array(buffer: rows.data), as: UTF8.self) == "2026-01-01\t2.5\n2026-01-02\t7.25\n")
        let typed = try PostgresImportTransaction.copyRows(Self.batch([["2026-01-01", 2.5]]), [0], of: entity, columns: [0, 1])
        #expect(typed.binary)
    }
}
