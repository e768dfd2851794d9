import Foundation
import HTTPTestSupport
import ImporterTestSupport
import PostgresTestSupport
import Synchronization
import Testing

/// Issue 46's acceptance, as a property over a seeded month of upstream life: a catalogue served
/// through a `date-min` endpoint gains events every day and has its last 20 days revised,
/// withdrawn, back-filled and re-timed by a second; imported daily with a 30-day look-back and a
/// windowed `--sync`, the store ends holding exactly what a full load of the last catalogue holds.
@Suite struct DailyWindowedSyncTests {
    /// One simulated day of upstream changes to `catalogue` (date → energy), on `day`.
    static func live(_ catalogue: inout [String: String], day: Date, random: inout SplitMix64) {
        func time(_ date: Date) -> String { Self.format.string(from: date) }
        for _ in 0..<Int(random.next() % 3) {
            catalogue[time(day.addingTimeInterval(Double(random.next() % 86_400)))] = "\(random.next() % 90 + 1).\(random.next() % 10)"
        }
        let recent = catalogue.keys.filter { $0 >= time(day.addingTimeInterval(-20 * 86_400)) && $0 < time(day) }.sorted()
        guard !recent.isEmpty else { return }
        for _ in 0..<Int(random.next() % 3) {
            let date = recent[Int(random.next() % UInt64(recent.count))]
            guard let energy = catalogue[date] else { continue }
            switch random.next() % 4 {
            case 0: catalogue[date] = energy + "5"
            case 1: catalogue[date] = nil
            case 2:
                catalogue[date] = nil
                catalogue[time((Self.format.date(from: date) ?? day).addingTimeInterval(1))] = energy
            default: catalogue[time(day.addingTimeInterval(-Double(random.next() % (15 * 86_400))))] = "0.\(random.next() % 9 + 1)"
            }
        }
    }

    static let format: DateFormatter = {
        let formatter = DateFormatter()
        (formatter.locale, formatter.timeZone, formatter.dateFormat) = (Locale(identifier: "en_US_POSIX"), TimeZone(identifier: "UTC"), "yyyy-MM-dd HH:mm:ss")
        return formatter
    }()

    static func stored(_ store: String) throws -> [String] {
        try importer(["query", "--store", store, "--format", "csv", "SELECT date, energy FROM fireball ORDER BY date"]).stdout
            .split(separator: "\r\n").dropFirst().map(String.init)
    }

    @Test(arguments: ["sqlite", "postgres"]) func aMonthOfDailyRunsEndsAsAFullLoad(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let seed = ProcessInfo.processInfo.environment["IMPORTER_PROPERTY_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let start = try #require(Self.format.date(from: "2024-02-01 00:00:00"))
        var initial: [String: String] = [:]
        for day in 0..<31 { Self.live(&initial, day: start.addingTimeInterval(Double(day - 31) * 86_400), random: &random) }
        let catalogue = Mutex(initial)
        let server = try TestHTTPServer { request in
            .init(headers: [("Content-Type", "application/json")], text: WindowedSyncTests.answer(catalogue.withLock { $0 }, uri: request.uri))
        }
        defer { server.stop() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory), model = try WindowedSyncTests.model(port: server.port, in: directory)
        let guards = ["--max-delete", "100%", "--max-updated", "100%", "--allow-empty"]
        for day in 0..<30 {
            catalogue.withLock { Self.live(&$0, day: start.addingTimeInterval(Double(day) * 86_400), random: &random) }
            let run = try importer(["run", "--store", store, "--model", model, "--sync"] + guards)
            #expect(run.status == 0, "seed \(seed), day \(day): \(run.stdout)\(run.stderr)")
        }
        let full = backend == "postgres" ? try PostgresTestCluster.start().newStoreURL() : directory.path("full.sqlite")
        #expect(try importer(["run", "--store", full, "--model", model, "--sync"] + guards).status == 0)
        let daily = try Self.stored(store), whole = try Self.stored(full)
        let onlyDaily = Set(daily).subtracting(whole).sorted(), onlyFull = Set(whole).subtracting(daily).sorted()
        #expect(!whole.isEmpty && daily == whole, "seed \(seed): the daily store differs from a full load: only daily \(onlyDaily), only full \(onlyFull)")
    }
}
