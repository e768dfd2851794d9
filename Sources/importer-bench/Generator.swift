import Foundation

/// Deterministic synthetic fireball records (SplitMix64), written in the API's JSON shape.
///
/// Records are generated oldest first with strictly increasing dates and written newest first,
/// as the API serves them. A "changed" variant revises the energy of a fraction of the records.
struct Generator {
    struct Row {
        var date: String
        var energy: Double
        var impact: Double
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var velocity: Double?
    }

    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func uniform(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * Double(next() >> 11) / Double(1 << 53)
        }
        mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
    }

    let count: Int

    /// The rows, oldest first. `changeFraction` revises that fraction of energies (seeded apart).
    func rows(changeFraction: Double = 0) -> [Row] {
        var random = Random(state: 42)
        var changes = Random(state: 7)
        var seconds = 0
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for _ in 0..<count {
            seconds += 1 + Int(random.next() % 600)
            var row = Row(date: Self.date(seconds), energy: round1(random.uniform(0.1, 50)), impact: round3(random.uniform(0.01, 2)))
            if random.chance(0.9) {
                row.latitude = round1(random.uniform(-90, 90))
                row.longitude = round1(random.uniform(-180, 180))
            }
            row.altitude = random.chance(0.7) ? round1(random.uniform(10, 80)) : nil
            row.velocity = random.chance(0.6) ? round1(random.uniform(10, 40)) : nil
            if changeFraction > 0, changes.chance(changeFraction) { row.energy = round1(row.energy + 1.3) }
            rows.append(row)
        }
        return rows
    }

    private func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
    private func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    /// `YYYY-MM-DD hh:mm:ss` for seconds after 1988-01-01 00:00:00.
    static func date(_ seconds: Int) -> String {
        let epoch = 6574 * 86400 // 1988-01-01 in days since 1970
        var t = epoch + seconds
        let days = t / 86400
        t %= 86400
        // Civil from days (Howard Hinnant).
        let z = days + 719468
        let era = z / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(pad(m))-\(pad(d)) \(pad(t / 3600)):\(pad(t % 3600 / 60)):\(pad(t % 60))"
    }

    /// Writes the rows newest first in the fireball API shape; returns the file size.
    @discardableResult
    static func writeFeed(_ rows: [Row], to path: String) throws -> Int {
        guard let file = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw BenchError.io("cannot write \(path)") }
        try file.truncate(atOffset: 0)
        var text = #"{"signature":{"source":"NASA/JPL Fireball Data API","version":"1.2"},"count":"\#(rows.count)","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":["# + "\n"
        var size = 0
        func number(_ x: Double?) -> String { x.map { "\"\($0)\"" } ?? "null" }
        for (index, row) in rows.reversed().enumerated() {
            if index > 0 { text += ",\n" }
            let lat = row.latitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "S" : "N")\"" } ?? "null,null"
            let lon = row.longitude.map { "\"\(abs($0))\",\"\($0 < 0 ? "W" : "E")\"" } ?? "null,null"
            text += "[\"\(row.date)\",\"\(row.energy)\",\"\(row.impact)\",\(lat),\(lon),\(number(row.altitude)),\(number(row.velocity))]"
            if text.utf8.count > 1 << 20 {
                size += text.utf8.count
                file.write(Data(text.utf8))
                text = ""
            }
        }
        text += "]}\n"
        size += text.utf8.count
        file.write(Data(text.utf8))
        try file.close()
        return size
    }
}

enum BenchError: Error, CustomStringConvertible {
    case io(String)
    case failed(String)
    var description: String {
        switch self { case .io(let m), .failed(let m): m }
    }
}
