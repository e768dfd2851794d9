import Foundation

/// The records of a feed as PostgreSQL COPY text, for the psql reference's `\copy`: one line per
/// record in feed order (newest first), the supplied attributes tab-separated (`columns`), `\N` for
/// NULL, signed coordinates (what the importer's mapping makes of `lat`/`lat-dir`), numbers as the
/// feed writes them. Written streaming, one chunk of rows in memory at a time.
enum CopyTextFeed {
    /// The attributes the API feed supplies (`FeedWriter.fields` mapped), in the file's column order.
    static let columns = ["date", "energy", "impact_energy", "latitude", "longitude", "altitude", "velocity"]

    /// Writes the rows of `generator` (revised by `changeFraction`) to `path`; returns its size in bytes.
    @discardableResult
    static func write(_ generator: Generator, changeFraction: Double, to path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError.io("cannot write \(path)")
        }
        var text = ""
        var written = 0
        func flush() throws {
            let bytes = Data(text.utf8)
            try file.write(contentsOf: bytes)
            written += bytes.count
            text = ""
        }
        // -0.0 as 0.0: the JSON feed writes a coordinate's magnitude and its direction, never a signed zero.
        func number(_ x: Double?) -> String { x.map { $0 == 0 ? "0.0" : "\($0)" } ?? "\\N" }
        try generator.forEachRowNewestFirst(changeFraction: changeFraction) { row in
            text += [row.date, number(row.energy), number(row.impact), number(row.latitude), number(row.longitude),
                     number(row.altitude), number(row.velocity)].joined(separator: "\t") + "\n"
            if text.utf8.count > 1 << 20 { try flush() }
        }
        try flush()
        try file.close()
        return written
    }
}
