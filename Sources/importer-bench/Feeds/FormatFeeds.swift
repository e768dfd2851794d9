import Foundation

/// The benchmark's records in the other formats importer reads, streamed like `FeedWriter`:
/// NDJSON (one flat object per line), XML (one element per record, a child element per field) and
/// the CNEOS CSV export (every field quoted, hemisphere glued to the number, energy in joules).
/// Each matches a model in SampleData/models, so importing any of them gives the same rows.
enum FormatFeeds {
    enum Format: String, CaseIterable {
        case ndjson, xml, csv

        var fileExtension: String { rawValue }
        var model: String {
            switch self {
            case .ndjson: "SampleData/models/fireball-ndjson.yaml"
            case .xml: "SampleData/models/fireball-xml-elements.yaml"
            case .csv: "SampleData/models/cneos-csv.yaml"
            }
        }
    }

    /// Writes the generator's rows (newest first, as the API feed) in `format`; returns the size.
    @discardableResult
    static func write(_ generator: Generator, as format: Format, to path: String) throws -> Int {
        let file = try TextFileWriter(path: path)
        switch format {
        case .ndjson: break
        case .xml: try file.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fireballs>\n")
        case .csv: try file.append("\"Peak Brightness Date/Time (UT)\",\"Latitude (deg.)\",\"Longitude (deg.)\",\"Altitude (km)\",\"Velocity (km/s)\",\"vx\",\"vy\",\"vz\",\"Total Radiated Energy (J)\",\"Calculated Total Impact Energy (kt)\"\r\n")
        }
        try generator.forEachRowNewestFirst { row in try file.append(line(row, format)) }
        if format == .xml { try file.append("</fireballs>\n") }
        return try file.close()
    }

    private static func line(_ row: Generator.Row, _ format: Format) -> String {
        let latitude = row.latitude.map { (abs($0), $0 < 0 ? "S" : "N") }
        let longitude = row.longitude.map { (abs($0), $0 < 0 ? "W" : "E") }
        switch format {
        case .ndjson:
            var fields = ["\"date\":\"\(row.date)\"", "\"energy\":\"\(row.energy)\"", "\"impact-e\":\"\(row.impact)\""]
            if let (value, direction) = latitude { fields += ["\"lat\":\"\(value)\"", "\"lat-dir\":\"\(direction)\""] }
            if let (value, direction) = longitude { fields += ["\"lon\":\"\(value)\"", "\"lon-dir\":\"\(direction)\""] }
            if let altitude = row.altitude { fields.append("\"alt\":\"\(altitude)\"") }
            if let velocity = row.velocity { fields.append("\"vel\":\"\(velocity)\"") }
            return "{" + fields.joined(separator: ",") + "}\n"
        case .xml:
            var text = "  <fireball><date>\(row.date)</date><energy>\(row.energy)</energy><impact-e>\(row.impact)</impact-e>"
            if let (value, direction) = latitude { text += "<lat>\(value)</lat><lat-dir>\(direction)</lat-dir>" }
            if let (value, direction) = longitude { text += "<lon>\(value)</lon><lon-dir>\(direction)</lon-dir>" }
            if let altitude = row.altitude { text += "<alt>\(altitude)</alt>" }
            if let velocity = row.velocity { text += "<vel>\(velocity)</vel>" }
            return text + "</fireball>\n"
        case .csv:
            func quoted(_ value: String) -> String { "\"\(value)\"" }
            let lat: String = latitude.map { "\($0.0)\($0.1)" } ?? ""
            let lon: String = longitude.map { "\($0.0)\($0.1)" } ?? ""
            let alt: String = row.altitude.map { "\($0)" } ?? ""
            let vel: String = row.velocity.map { "\($0)" } ?? ""
            let fields: [String] = [row.date, lat, lon, alt, vel, "", "", "", "\(row.energy)e10", "\(row.impact)"]
            return fields.map(quoted).joined(separator: ",") + "\r\n"
        }
    }
}
