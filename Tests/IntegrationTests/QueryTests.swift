import ImporterTestSupport
import Foundation
import Testing

/// `importer query`: read-only SQL against the store, in every output format, with bound
/// parameters; writes are refused by SQLite at the connection, and the store is unchanged.
@Suite struct QueryTests {
    private func store(_ directory: TemporaryDirectory) throws -> String {
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        return store
    }

    @Test func rowsInEveryFormatWithParameters() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try store(directory)
        let sql = "SELECT date, energy FROM fireball WHERE energy > :min ORDER BY date"
        let json = try importer(["query", sql, "--param", "min=10", "--format", "json", "--store", store])
        #expect(json.status == 0, "\(json.stderr)")
        let rows = try #require(json.json as? [[String: Any]])
        #expect(rows.map { $0["date"] as? String } == ["2022-03-11 21:22:46", "2023-12-13 19:31:02", "2024-05-18 22:46:48"])
        #expect(rows.map { $0["energy"] as? Double } == [31.5, 758, 12.3])
        let ndjson = try importer(["query", sql, "--param", "min=100", "--format", "ndjson", "--store", store])
        #expect(ndjson.stdout == #"{"date":"2023-12-13 19:31:02","energy":758}"# + "\n")
        let csv = try importer(["query", sql, "--param", ":min=100", "--format", "csv", "--store", store])
        #expect(csv.stdout == "\"date\",\"energy\"\r\n\"2023-12-13 19:31:02\",758\r\n")
        let table = try importer(["query", "SELECT region, count FROM fireball_by_region WHERE region = :r", "--param", "r=NW", "--store", store])
        #expect(table.stdout == "region  count\n------  -----\nNW      3    \n", "\(table.stdout)")
        let raw = try importer(["query", "SELECT token FROM importer_transaction WHERE number = :n", "--param", "n=1", "--raw", "--store", store])
        #expect(raw.stdout.count == 35 && raw.stdout.hasSuffix("\n"))
        #expect(try importer(["history", "--after", raw.stdout.trimmingCharacters(in: .newlines), "--store", store]).stdout == "No history transactions.\n")
    }

    @Test func writesAreRefusedAndTheStoreIsUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try store(directory)
        let before = try sha256(store)
        for sql in ["DELETE FROM fireball", "UPDATE fireball SET energy = 0", "DROP TABLE fireball_by_year", "CREATE TABLE t(a)",
                    "INSERT INTO importer_metadata(key, value) VALUES ('k', 'v')", "PRAGMA user_version = 7",
                    "VACUUM INTO '\(directory.path("copy.sqlite"))'", "ATTACH '\(directory.path("other.sqlite"))' AS other"] {
            let run = try importer(["query", sql, "--store", store])
            #expect(run.status == 65, "\(sql): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("query refused: the store is opened read-only for queries, and this statement would write"), "\(sql): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        #expect(try sha256(store) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.path("copy.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: directory.path("other.sqlite")))
        let count = try importer(["query", "SELECT count(*) AS n FROM fireball", "--raw", "--store", store])
        #expect(count.stdout == "10\n")
    }

    @Test func badStatementsAndParametersSayWhy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try store(directory)
        let cases: [([String], Int32, String)] = [
            (["SELECT 1; DELETE FROM fireball"], 65, "give exactly one SQL statement"),
            (["SELECT * FROM nope"], 65, "query failed: no such table: nope"),
            (["SELECT :a"], 64, "the statement uses :a; give --param a=VALUE"),
            (["SELECT 1", "--param", "b=2"], 64, "--param b: the statement has no parameter :b"),
            (["SELECT ?"], 64, "positional parameters"),
            (["SELECT 1", "--param", "novalue"], 64, "--param 'novalue': give NAME=VALUE"),
        ]
        for (arguments, status, message) in cases {
            let run = try importer(["query"] + arguments + ["--store", store])
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        #expect(try importer(["query", "SELECT 1", "--store", directory.path("absent.sqlite")]).status == 66)
    }
}
