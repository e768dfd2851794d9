import Foundation

/// Writes records in the fireball API's JSON shape (`signature`, `count`, `fields`, `data`), one
/// row per line, in the order they are appended, streaming (`TextFileWriter`).
final class FeedWriter {
    static let fields = ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"]

    private let file: TextFileWriter
    private let path: String
    private let count: Int
    private var rows = 0

    /// Creates (or truncates) `path`; `count` is the number of rows that will be appended.
    init(path: String, count: Int) throws {
        file = try TextFileWriter(path: path)
        self.path = path
        self.count = count
        let fields = Self.fields.map { "\"\($0)\"" }.joined(separator: ",")
        try file.append(#"{"signature":{"source":"NASA/JPL Fireball Data API","version":"1.2"},"count":"\#(count)","fields":[\#(fields)],"data":["# + "\n")
    }

    func append(_ row: Generator.Row) throws {
        if rows > 0 { try file.append(",\n") }
        rows += 1
        func number(_ x: Double?) -> String { x.map { "\"\($0)\"" } ?? "null" }
        let lat = row.latitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "S" : "N")\"" } ?? "null,null"
        let lon = row.longitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "W" : "E")\"" } ?? "null,null"
        try file.append("[\"\(row.date)\",\"\(row.energy)\",\"\(row.impact)\",\(lat),\(lon),\(number(row.altitude)),\(number(row.velocity))]")
    }

    /// Closes the feed; returns its size in bytes.
    func finish() throws -> Int {
        guard rows == count else { throw BenchError.failed("\(path): \(rows) rows written, \(count) declared") }
        try file.append("]}\n")
        return try file.close()
    }
}
