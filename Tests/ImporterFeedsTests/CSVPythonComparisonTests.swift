import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// The CSV reader splits rows as Python's `csv` module does (the excel dialect: `,`, `"`, doubled
/// quotes, CR/LF/CRLF line ends, a quote inside an unquoted field taken literally), on random
/// tables written the ways real exports write them: quoting all, some or none of the fields, with
/// line ends, delimiters and quotes inside quoted fields, a byte order mark, empty lines.
@Suite struct CSVPythonComparisonTests {
    static let script = """
        import csv, json, sys
        out = []
        for path in sys.argv[1:]:
            with open(path, newline='', encoding='utf-8-sig') as f:
                out.append([row for row in csv.reader(f) if row != []])
        json.dump(out, sys.stdout)
        """

    /// A random table: a header of distinct names, then rows of random values.
    static func table(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "0", "1.5", " ", ",", "\"", "\n", "\r", "\r\n", "é", "日本", "🇨🇭", "\t", "'", "x\"y"]
        let columns = 1 + Int(random.next() % 5)
        let quoting = random.next() % 3 // 0: minimal, 1: all, 2: random
        var text = random.next() % 5 == 0 ? "\u{FEFF}" : ""
        func field(_ value: String) -> String {
            let needs = value.isEmpty || value.first == "\"" || value.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            let quote = quoting == 1 || (quoting == 2 && random.next() % 2 == 0) || (needs && !(value.isEmpty && columns > 1))
            return quote ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
        }
        text += (0..<columns).map { "name \($0)" }.map(field).joined(separator: ",")
        for _ in 0..<Int(random.next() % 20) {
            text += ["\n", "\r\n", "\r"][Int(random.next() % 3)]
            if random.next() % 8 == 0 { text += "\n" } // an empty line
            text += (0..<columns).map { _ in
                field((0..<Int(random.next() % 5)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
            }.joined(separator: ",")
        }
        if random.next() % 2 == 0 { text += "\r\n" }
        return text
    }

    /// The header's names (requested in order, so each slot is its column), then every row.
    static func readRows(_ path: String, names: [String]) throws -> [[String]] {
        let reader = try CSVRecordsReader(source: try ByteSource(path: path), mapping: cneosCSVFeed, bufferSize: 64)
        let header = try reader.open(requesting: names)
        #expect(header.supplied.allSatisfy { $0 })
        var record = RawRecord(slotCount: names.count)
        var rows: [[String]] = [names]
        while try reader.next(into: &record) { rows.append(names.indices.map { record.text(of: $0) }) }
        return rows
    }

    @Test func splitsRowsAsPythonsCSVModuleDoes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var random = SplitMix64(seed: 0x5EED)
        var paths: [String] = []
        for index in 0..<300 {
            let path = directory.path("table-\(index).csv")
            try Self.table(&random).write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script] + paths
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 is needed to compare with its csv module")
        let python = try #require(try JSONSerialization.jsonObject(with: data) as? [[[String]]])
        try #require(python.count == paths.count)
        for (path, expected) in zip(paths, python) {
            let rows = try Self.readRows(path, names: expected.first ?? [])
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(rows == expected, "\(path): \(text.debugDescription)")
        }
    }
}
