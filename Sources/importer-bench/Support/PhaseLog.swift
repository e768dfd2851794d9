import Foundation

/// The importer's `phase times` log line (`--verbose --log-format json`), read back into a table
/// of where each run's time went.
enum PhaseLog {
    /// The phases of the last `phase times` line in the NDJSON log at `path` (empty when none).
    static func phases(in path: String) -> [(String, Double)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        for line in text.split(separator: "\n").reversed() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["message"] as? String == "phase times", let seconds = object["seconds"] as? String else { continue }
            return seconds.split(separator: " ").compactMap { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Double(parts[1]) else { return nil }
                return (parts[0].replacingOccurrences(of: "_", with: " "), value)
            }
        }
        return []
    }

    /// Seconds per phase for each importer case; `other` is the wall time the phases do not cover
    /// (start-up, opening the store, the report). `read` runs on its own thread, beside `upsert`.
    static func table(_ rows: [Benchmark.Row],
                      title: String = "Where the time goes (seconds per phase, from each run's `phase times` log line)") -> BenchTable {
        var names: [String] = []
        for row in rows { for (name, _) in row.phases where !names.contains(name) { names.append(name) } }
        var table = BenchTable(title: title, headers: ["case"] + names + ["other", "wall"])
        for row in rows {
            let values = Dictionary(row.phases, uniquingKeysWith: +)
            let covered = row.phases.filter { $0.0 != "read" }.reduce(0) { $0 + $1.1 }
            table.add([row.label] + names.map { values[$0].map { $0.formatted(2) } ?? "-" } + [(row.seconds - covered).formatted(2), row.seconds.formatted(2)])
        }
        table.notes = [
            "read: reading and mapping the feed on the reader thread, overlapping upsert; read wait: the writer waiting for it.",
            "wall = every phase but read, plus other.",
        ]
        return table
    }
}
