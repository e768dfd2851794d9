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
        let file = try TextFileWriter(path: path)
        // -0.0 as 0.0: the JSON feed writes a coordinate's magnitude and its direction, never a signed zero.
        func number(_ x: Double?) -> String { x.map { $0 == 0 ? "0.0" : "\($0)" } ?? "\\N" }
        try generator.forEachRowNewestFirst(changeFraction: changeFraction) { row in
            try file.append([row.date, number(row.energy), number(row.impact), number(row.latitude), number(row.longitude),
                             number(row.altitude), number(row.velocity)].joined(separator: "\t") + "\n")
        }
        return try file.close()
    }
}
