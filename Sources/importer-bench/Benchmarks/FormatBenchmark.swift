import Foundation
import ImporterKit

/// The same records as API JSON, NDJSON, XML and CNEOS CSV: parsing alone (in-process: the reader
/// and the mapping, nothing written) and end to end (`importer run --model …` as a subprocess into a
/// fresh store, views included), with MB/s, rows/s and peak RSS.
///
/// Targets: XML end to end at least half the JSON rows/s; peak RSS under 100 MB for every format.
enum FormatBenchmark {
    struct Input {
        var label: String
        var path: String
        var model: String
        var bytes: Int
    }

    struct EndToEnd {
        var seconds: Double
        var peakRSSKiB: Int
        var spawnerPeakKiB: Int
    }

    /// Writes the other formats beside the API feed.
    static func inputs(_ generator: Generator, apiFeed: String, apiBytes: Int, directory: String) throws -> [Input] {
        var inputs = [Input(label: "API JSON (nasa-columnar)", path: apiFeed, model: "SampleData/models/fireball.yaml", bytes: apiBytes)]
        for format in FormatFeeds.Format.allCases {
            let path = directory + "/fireball-\(generator.count).\(format.fileExtension)"
            let bytes = try FormatFeeds.write(generator, as: format, to: path)
            inputs.append(Input(label: format.rawValue.uppercased(), path: path, model: format.model, bytes: bytes))
        }
        return inputs
    }

    /// End to end, one fresh store per format (run while the bench process is small).
    static func endToEnd(_ inputs: [Input], importer: String, directory: String, records: Int) throws -> [EndToEnd] {
        try inputs.map { input in
            let store = directory + "/format.sqlite"
            StoreFiles.remove(store)
            defer { StoreFiles.remove(store) }
            let report = directory + "/format-report.txt"
            defer { try? FileManager.default.removeItem(atPath: report) }
            let m = try ProcessRunner.run(importer, ["run", "--store", store, "--model", input.model, input.path], stdout: report)
            guard m.status == 0 else { throw BenchError.failed("importer exited with \(m.status) for \(input.label)") }
            let summary = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            guard summary.contains("\(records) inserted") else { throw BenchError.failed("\(input.label): unexpected report: \(summary.prefix(300))") }
            return EndToEnd(seconds: m.seconds, peakRSSKiB: m.peakRSSKiB, spawnerPeakKiB: m.spawnerPeakKiB)
        }
    }

    /// Parsing alone: the format's reader and the model's mapping, through the import's own loop
    /// (`MappedFeed`), batches dropped when full.
    static func parse(_ input: Input) throws -> Int {
        let model = try ModelFile.load(path: input.model)
        guard let mapping = model.feeds.first, let entity = model.entity(named: mapping.entity) else {
            throw BenchError.failed("\(input.model) has no feed mapping")
        }
        let feed = try MappedFeed(FeedInput(path: input.path, mapping: mapping), entity: entity)
        try feed.read(batchSize: 8192) { reject in
            throw BenchError.failed("\(input.label): reject: \(reject)")
        } onBatch: { _ in }
        return feed.records
    }

    static func table(_ inputs: [Input], endToEnd: [EndToEnd], records: Int, repeats: Int) throws -> BenchTable {
        var table = BenchTable(title: "Feed formats: the same \(records) records (parsing in-process, best of \(repeats); end to end as a subprocess)",
                              headers: ["format", "MB", "parse s", "parse rows/s", "parse MB/s", "run s", "run rows/s", "× JSON run", "peak RSS MiB"])
        let jsonRate = Double(records) / (endToEnd.first?.seconds ?? .nan)
        var xmlRatio = Double.nan
        var csvRatio = Double.nan
        var largestRSS = 0
        for (input, run) in zip(inputs, endToEnd) {
            var best = Double.infinity
            for _ in 0..<repeats {
                let (count, seconds) = try Stopwatch.seconds { try parse(input) }
                guard count == records else { throw BenchError.failed("\(input.label): parsed \(count) records, expected \(records)") }
                best = min(best, seconds)
            }
            let rate = Double(records) / run.seconds
            if input.label == "XML" { xmlRatio = rate / jsonRate }
            if input.label == "CSV" { csvRatio = rate / jsonRate }
            largestRSS = max(largestRSS, run.peakRSSKiB)
            table.add([input.label, (Double(input.bytes) / 1e6).formatted(1), best.formatted(2), (Double(records) / best).formatted(0),
                       (Double(input.bytes) / best / 1e6).formatted(0), run.seconds.formatted(2), rate.formatted(0),
                       (rate / jsonRate).formatted(2), mebibytes(kiB: run.peakRSSKiB)])
        }
        table.notes = [
            "run: `importer run --model SampleData/models/<format model> FEED` into a fresh store (history and views included).",
            "targets, end to end × the JSON rows/s: CSV ≥ 0.90: \(csvRatio.formatted(2)) (\(csvRatio >= 0.9 ? "met" : "NOT met")); "
                + "XML ≥ 0.80: \(xmlRatio.formatted(2)) (\(xmlRatio >= 0.8 ? "met" : "NOT met"));",
            "  peak RSS < 100 MB for every format: largest \(mebibytes(kiB: largestRSS)) MiB (\(Double(largestRSS) * 1024 < 100e6 ? "met" : "NOT met")).",
        ]
        return table
    }
}
