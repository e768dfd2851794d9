import ImporterTestSupport
import Foundation
import Testing

/// `--since`, `--before` and `--as-of` accept ISO 8601 with offsets, a date alone, and a time ago;
/// anything else is a usage error that shows an accepted example.
@Suite struct DateOptionTests {
    /// The numbers of the transactions `history --since since` lists.
    private func since(_ since: String, store: String) throws -> [Int] {
        let run = try importer(["history", "--store", store, "--since", since, "--format", "json"])
        #expect(run.status == 0, "--since \(since): \(run.stderr)")
        let transactions = (run.json as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        return transactions.compactMap { $0["number"] as? Int }
    }

    /// `timestamp` (history's UTC form) moved by `seconds`, written with a +02:00 offset.
    private func plusTwoHours(_ timestamp: String, seconds: Double) throws -> String {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(parser.date(from: timestamp)).addingTimeInterval(seconds)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 7200)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'+02:00'"
        return formatter.string(from: date)
    }

    @Test func sinceAcceptsOffsetsDatesAndTimesAgo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let first = try importer(["run", "--store", store, "--format", "json", sample("fireball-2024.json")])
        let transaction = try #require((first.json as? [String: Any])?["transaction"] as? [String: Any])
        let timestamp = try #require(transaction["timestamp"] as? String)
        #expect(try since(try plusTwoHours(timestamp, seconds: 0), store: store) == [1])
        #expect(try since(try plusTwoHours(timestamp, seconds: 0.001), store: store) == [])
        #expect(try since(String(timestamp.prefix(10)), store: store) == [1])
        #expect(try since("2999-01-01", store: store) == [])
        #expect(try since("1h", store: store) == [1])
        #expect(try since("7d", store: store) == [1])
        #expect(try since("0s", store: store) == [])
        #expect(try since("2000-01-01 00:00", store: store) == [1])
    }

    @Test func badDatesAreUsageErrorsWithAnExample() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        for (arguments, option) in [(["history", "--since", "yesterday"], "--since"), (["report", "--since", "2026-02-30"], "--since"),
                                    (["history", "purge", "--before", "last week"], "--before"), (["export", "--as-of", "2026-13-01"], "--as-of")] {
            let run = try importer(arguments + ["--store", store])
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains("\(option): '"), "\(run.stderr)")
            #expect(run.stderr.contains("2026-01-01T08:30:00+02:00") && run.stderr.contains("7d"), "\(run.stderr)")
        }
    }

    @Test func purgeBeforeAndExportAsOfTakeTheSameForms() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let past = try importer(["export", "--store", store, "--as-of", "2000-01-01T00:00:00-05:00", "--format", "ndjson"])
        #expect(past.status == 0, "\(past.stderr)")
        #expect(past.stdout.isEmpty)
        let now = try importer(["export", "--store", store, "--as-of", "0s", "--format", "ndjson"])
        #expect(now.stdout.split(separator: "\n").count == 10)
        let purge = try importer(["history", "purge", "--store", store, "--before", "1d", "--format", "json"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect((purge.json as? [String: Any])?["transactions"] as? Int == 0)
    }
}
