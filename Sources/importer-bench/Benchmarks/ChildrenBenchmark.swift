import Foundation

/// Child entities beside flat records (issue 44): the same stations and vehicle types imported
/// from the nested feed (each station's types as its children) and from the flat one (stations and
/// types as two feeds of one run), each a first load into a fresh store then a re-load of the
/// changed snapshot (5 % of the stations changed, every list re-ordered); alternated `repeats`
/// times, medians.
///
/// Target: the nested feed within 1.25× of the flat one's time (the same rows), peak RSS < 100 MiB.
enum ChildrenBenchmark {
    struct Outcome {
        var flatFirst: [ProcessRunner.Measurement] = []
        var nestedFirst: [ProcessRunner.Measurement] = []
        var flatReload: [ProcessRunner.Measurement] = []
        var nestedReload: [ProcessRunner.Measurement] = []
        var parents = 0
    }

    static func run(importer: String, parents: Int, directory: String, repeats: Int) throws -> Outcome {
        let feeds = ChildFeeds(parents: parents)
        let first = try feeds.write(in: directory, changed: false), changed = try feeds.write(in: directory, changed: true)
        let nestedModel = directory + "/children-nested.yaml", flatModel = directory + "/children-flat.yaml"
        try ChildFeeds.model(nested: true).write(toFile: nestedModel, atomically: true, encoding: .utf8)
        try ChildFeeds.model(nested: false).write(toFile: flatModel, atomically: true, encoding: .utf8)
        defer {
            for path in [first.nested, first.stations, first.vehicles, changed.nested, changed.stations, changed.vehicles, nestedModel, flatModel] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let store = directory + "/children.sqlite"
        func run(_ model: String, _ sources: [String], expecting: String) throws -> ProcessRunner.Measurement {
            let report = directory + "/children-report.txt"
            defer { try? FileManager.default.removeItem(atPath: report) }
            let m = try ProcessRunner.run(importer, ["run", "--store", store, "--model", model, "--max-updated", "100%"] + sources, stdout: report)
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            guard m.status == 0, text.contains(expecting) else { throw BenchError.failed("importer exited with \(m.status) for \(sources): \(text.prefix(300))") }
            return m
        }
        let children = parents * ChildFeeds.types.count, updated = (parents + 19) / 20
        var outcome = Outcome(parents: parents)
        for _ in 0 ..< max(repeats, 1) {
            StoreFiles.remove(store)
            outcome.flatFirst.append(try run(flatModel, [first.stations, first.vehicles], expecting: "StationVehicle: \(children) inserted"))
            outcome.flatReload.append(try run(flatModel, [changed.stations, changed.vehicles], expecting: "StationVehicle: 0 inserted, \(updated) updated"))
            StoreFiles.remove(store)
            outcome.nestedFirst.append(try run(nestedModel, [first.nested], expecting: "StationVehicle: \(children) inserted"))
            outcome.nestedReload.append(try run(nestedModel, [changed.nested], expecting: "StationVehicle: 0 inserted, \(updated) updated, 0 deleted"))
        }
        StoreFiles.remove(store)
        return outcome
    }

    static func table(_ outcome: Outcome) -> BenchTable {
        func median(_ runs: [ProcessRunner.Measurement]) -> Double { runs.map(\.seconds).sorted()[runs.count / 2] }
        func peak(_ runs: [ProcessRunner.Measurement]) -> Int { runs.map(\.peakRSSKiB).max() ?? 0 }
        let rows = outcome.parents * (1 + ChildFeeds.types.count)
        var table = BenchTable(title: "Child entities: \(outcome.parents) stations × \(ChildFeeds.types.count) vehicle types (\(rows) rows), nested beside flat (medians of \(outcome.flatFirst.count), alternated)",
                              headers: ["case", "flat s", "nested s", "nested ÷ flat", "rows/s nested", "peak RSS MiB flat", "nested"])
        var met = true
        for (label, flat, nested) in [("first load", outcome.flatFirst, outcome.nestedFirst), ("re-load, 5 % changed, lists re-ordered", outcome.flatReload, outcome.nestedReload)] {
            let ratio = median(nested) / median(flat)
            met = met && ratio <= 1.25 && peak(nested) < 100 * 1024
            table.add([label, median(flat).formatted(2), median(nested).formatted(2), ratio.formatted(2), (Double(rows) / median(nested)).formatted(0),
                       mebibytes(kiB: peak(flat)), mebibytes(kiB: peak(nested))])
        }
        table.notes = [
            "flat: the stations as a JSON array and their types as NDJSON lines, two feeds of one run; nested: one document, its types read as children.",
            "target: nested within 1.25× of flat, peak RSS < 100 MiB: \(met ? "met" : "NOT met").",
        ]
        return table
    }
}
