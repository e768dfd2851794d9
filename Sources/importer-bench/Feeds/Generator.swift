import Foundation

/// Deterministic synthetic fireball records (SplitMix64), in the API's JSON shape.
///
/// Records are generated oldest first with strictly increasing dates; feeds list them newest
/// first, as the API serves them. A "changed" variant revises the energy of a fraction of the
/// records (its own random stream, so every other value is the same as in the plain variant).
///
/// Two ways to get them:
/// - `writeFeed(changeFraction:to:)` streams a feed file without keeping the rows: it generates
///   once to note a `Cursor` every `chunkSize` records, then regenerates the chunks from those
///   cursors newest chunk first, holding one chunk at a time;
/// - `rows(changeFraction:)` returns them all in memory (oldest first), for the in-process studies.
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

    /// Everything the next record depends on: generating from a copy of a cursor repeats the
    /// records that followed it.
    struct Cursor {
        var values = Random(state: 42)
        var changes = Random(state: 7)
        var seconds = 0

        mutating func next(changeFraction: Double) -> Row {
            seconds += 1 + Int(values.next() % 600)
            var row = Row(date: Generator.date(seconds), energy: round1(values.uniform(0.1, 50)), impact: round3(values.uniform(0.01, 2)))
            if values.chance(0.9) {
                row.latitude = round1(values.uniform(-90, 90))
                row.longitude = round1(values.uniform(-180, 180))
            }
            row.altitude = values.chance(0.7) ? round1(values.uniform(10, 80)) : nil
            row.velocity = values.chance(0.6) ? round1(values.uniform(10, 40)) : nil
            if changeFraction > 0, changes.chance(changeFraction) { row.energy = round1(row.energy + 1.3) }
            return row
        }

        private func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
        private func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
    }

    let count: Int
    /// Records regenerated and held at a time by `writeFeed`.
    var chunkSize = 8192

    /// The rows, oldest first. `changeFraction` revises that fraction of energies (seeded apart).
    func rows(changeFraction: Double = 0) -> [Row] {
        var cursor = Cursor()
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for _ in 0..<count { rows.append(cursor.next(changeFraction: changeFraction)) }
        return rows
    }

    /// Calls `body` with every row, newest first, holding one chunk of rows at a time.
    func forEachRowNewestFirst(changeFraction: Double = 0, _ body: (Row) throws -> Void) throws {
        guard chunkSize > 0 else { throw BenchError.failed("chunk size must be positive") }
        var cursor = Cursor()
        var starts: [Cursor] = []
        starts.reserveCapacity(count / chunkSize + 1)
        for index in 0..<count {
            if index % chunkSize == 0 { starts.append(cursor) }
            _ = cursor.next(changeFraction: changeFraction)
        }
        var chunk: [Row] = []
        chunk.reserveCapacity(chunkSize)
        for (number, start) in starts.enumerated().reversed() {
            var cursor = start
            chunk.removeAll(keepingCapacity: true)
            for _ in 0..<min(chunkSize, count - number * chunkSize) { chunk.append(cursor.next(changeFraction: changeFraction)) }
            for row in chunk.reversed() { try body(row) }
        }
    }

    /// Writes the feed (newest first) without keeping the rows: memory stays at one chunk.
    /// Returns the file size. The bytes are those `FeedWriter` writes for `rows(changeFraction:)`
    /// reversed.
    @discardableResult
    func writeFeed(changeFraction: Double = 0, to path: String) throws -> Int {
        let writer = try FeedWriter(path: path, count: count)
        try forEachRowNewestFirst(changeFraction: changeFraction) { try writer.append($0) }
        return try writer.finish()
    }

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
}

extension Generator {
    /// `rows` in the order the importer writes them: feed order (newest first), each batch of
    /// `batchSize` sorted by key.
    static func writeOrder(_ rows: [Row], batchSize: Int = 8192) -> [Row] {
        let feedOrder = Array(rows.reversed())
        var ordered: [Row] = []
        ordered.reserveCapacity(feedOrder.count)
        var start = 0
        while start < feedOrder.count {
            let end = min(start + batchSize, feedOrder.count)
            ordered += feedOrder[start..<end].sorted { $0.date < $1.date }
            start = end
        }
        return ordered
    }
}

extension Generator {
    /// The re-load `pair.sh` measures (its `--mutate 5`): of the plain records, `changed` revised
    /// (a quarter each: impact energy; altitude; velocity; energy and impact energy), `gone` left
    /// out, and `new` as many new records after the newest, 2 s apart (beyond key drift's 1 s).
    /// Each record's fate follows from its date alone, so any order of generation agrees.
    struct Reload {
        var changed = 0.05
        var gone = 0.005
        var new = 0.01

        /// The record as the re-load has it; nil when it is gone.
        func apply(_ row: Row) -> Row? {
            var random = Random(state: row.date.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 })
            let draw = random.uniform(0, 1)
            if draw < gone { return nil }
            guard draw < gone + changed else { return row }
            var row = row
            switch random.next() % 4 {
            case 0: row.impact = ((row.impact + 0.137) * 1000).rounded() / 1000
            case 1: row.altitude = ((row.altitude ?? 20) * 10 + 11).rounded() / 10
            case 2: row.velocity = ((row.velocity ?? 20) * 10 + 7).rounded() / 10
            default:
                row.energy = ((row.energy + 1.3) * 10).rounded() / 10
                row.impact = ((row.impact + 0.137) * 1000).rounded() / 1000
            }
            return row
        }
    }

    /// Writes the re-load's feed (newest first, the new records ahead), holding one chunk of rows at
    /// a time; returns the records it kept, left out and added.
    @discardableResult
    func writeFeed(reload: Reload, to path: String) throws -> (kept: Int, gone: Int, new: Int) {
        var cursor = Cursor()
        var kept = 0
        for _ in 0..<count where reload.apply(cursor.next(changeFraction: 0)) != nil { kept += 1 }
        let new = Int((Double(count) * reload.new).rounded())
        let writer = try FeedWriter(path: path, count: kept + new)
        var extra = Cursor(values: Random(state: 4242), changes: Random(state: 7), seconds: 0)
        for index in stride(from: new, to: 0, by: -1) {
            var row = extra.next(changeFraction: 0)
            row.date = Generator.date(cursor.seconds + 2 * index)
            try writer.append(row)
        }
        try forEachRowNewestFirst { row in
            if let row = reload.apply(row) { try writer.append(row) }
        }
        _ = try writer.finish()
        return (kept, count - kept, new)
    }
}
