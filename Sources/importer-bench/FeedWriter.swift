import Foundation

/// Writes records in the fireball API's JSON shape (`signature`, `count`, `fields`, `data`), one
/// row per line, in the order they are appended; text is flushed every MiB, so memory stays small
/// whatever the feed's size.
final class FeedWriter {
    static let fields = ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"]

    private let file: FileHandle
    private let path: String
    private let count: Int
    private var text = ""
    private var written = 0
    private var rows = 0

    /// Creates (or truncates) `path`; `count` is the number of rows that will be appended.
    init(path: String, count: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError.io("cannot write \(path)")
        }
        self.file = file
        self.path = path
        self.count = count
        let fields = Self.fields.map { "\"\($0)\"" }.joined(separator: ",")
        text = #"{"signature":{"source":"NASA/JPL Fireball Data API","version":"1.2"},"count":"\#(count)","fields":[\#(fields)],"data":["# + "\n"
    }

    func append(_ row: Generator.Row) throws {
        if rows > 0 { text += ",\n" }
        rows += 1
        func number(_ x: Double?) -> String { x.map { "\"\($0)\"" } ?? "null" }
        let lat = row.latitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "S" : "N")\"" } ?? "null,null"
        let lon = row.longitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "W" : "E")\"" } ?? "null,null"
        text += "[\"\(row.date)\",\"\(row.energy)\",\"\(row.impact)\",\(lat),\(lon),\(number(row.altitude)),\(number(row.velocity))]"
        if text.utf8.count > 1 << 20 { try flush() }
    }

    /// Closes the feed; returns its size in bytes.
    func finish() throws -> Int {
        guard rows == count else { throw BenchError.failed("\(path): \(rows) rows written, \(count) declared") }
        text += "]}\n"
        try flush()
        try file.close()
        return written
    }

    private func flush() throws {
        let bytes = Data(text.utf8)
        try file.write(contentsOf: bytes)
        written += bytes.count
        text = ""
    }
}
