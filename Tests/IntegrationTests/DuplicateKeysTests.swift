import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// A key repeated in a feed is named (key and both places) in the warnings, or rejected, and the
/// mapping's `duplicates:` chooses what is stored: alike on SQLite and PostgreSQL, on a first load
/// (PostgreSQL: records COPied straight in, or all staged) and on a reload, within a batch and
/// across batches, and across feeds (a merge, whatever the choice).
@Suite struct DuplicateKeysTests {
    static let model = """
        entities:
          - name: Quake
            key: [code]
            attributes:
              - {name: code, type: text, required: true}
              - {name: mag, type: real}
              - {name: type, type: text}
        feeds:
        \(["quakes": "last", "quakes-first": "first", "quakes-strict": "reject"].sorted { $0.key < $1.key }.map { name, choice in """
          - name: \(name)
            entity: Quake
            format: ndjson
            duplicates: \(choice)
            fields:
              - {attribute: code, field: /id}
              - {attribute: mag, field: /mag}
              - {attribute: type, field: /type}
        """ }.joined(separator: "\n"))
        """

    /// 20,003 records, more than two batches: k00010 again at records 12000 and 15000 (batches 2
    /// and 2), k14000 again at the end (record 20002); the first batch has no repeat.
    static var bigFeed: String {
        var lines = (0..<20_000).map { #"{"id":"k\#(String(format: "%05d", $0))","mag":\#(Double($0) / 10),"type":"e"}"# }
        lines.insert(#"{"id":"k00010","mag":99.0,"type":"dup"}"#, at: 12_000)
        lines.insert(#"{"id":"k00010","mag":98.0,"type":"dup3"}"#, at: 15_000)
        lines.append(#"{"id":"k14000","mag":77.0,"type":"dup2"}"#)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A second feed repeating k00010 twice: merged over big's, then a repeat of its own.
    static let otherFeed = #"{"id":"k00010","mag":55.0,"type":"other"}"# + "\n" + #"{"id":"k00010","mag":56.0,"type":"other2"}"# + "\n"
    /// A first batch with a repeat (PostgreSQL stages it all).
    static let dayFeed = [#"{"id":"a","mag":1.0,"type":"earthquake"}"#, #"{"id":"b","mag":2.0}"#, #"{"id":"a","mag":1.5,"type":"quarry"}"#,
                          #"{"id":"c","mag":3.0}"#, #"{"id":"a","mag":1.7,"type":"blast"}"#].joined(separator: "\n") + "\n"
    /// Stored before the reload.
    static let earlierFeed = #"{"id":"k00010","mag":0.5}"# + "\n" + #"{"id":"a","mag":0.1}"# + "\n"

    /// What a run did, comparable across backends.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: Int32
        var report: NSDictionary?
        var rejects: [String]
        var rows: String
        var description: String { "status \(status), rejects \(rejects), report \(report.map { "\($0)" } ?? "nil")" }
    }

    static func files(_ directory: TemporaryDirectory) throws -> [String: String] {
        var paths: [String: String] = [:]
        for (name, text) in [("model.yaml", model), ("big.ndjson", bigFeed), ("other.ndjson", otherFeed), ("day.ndjson", dayFeed),
                             ("earlier.ndjson", earlierFeed)] {
            paths[name] = directory.path(name)
            try text.write(toFile: directory.path(name), atomically: true, encoding: .utf8)
        }
        return paths
    }

    /// Runs `mapping` over `feeds` into `store` (after an earlier load, when `reload`).
    static func run(_ mapping: String, _ feeds: [String], store: String, reload: Bool, files: [String: String]) throws -> Outcome {
        let common = ["--model", files["model.yaml"] ?? "", "--store", store]
        if reload { try #require(try importer(["run", "--mapping", "quakes", files["earlier.ndjson"] ?? ""] + common).status == 0) }
        let run = try importer(["run", "--mapping", mapping, "--max-rejects", "10", "--format", "json"] + common + feeds.map { files[$0] ?? $0 })
        let object = run.json as? [String: Any] ?? [:]
        let rejects = (object["rejects"] as? [[String: Any]] ?? []).map { "\($0["source"] ?? ""):\($0["record"] ?? "") \($0["reason"] ?? "")" }.sorted()
        let report = object.filter { $0.key != "transaction" && $0.key != "rejects" } as NSDictionary
        let export = try importer(["export", "--format", "csv", "--store", store])
        return Outcome(status: run.status, report: run.json == nil ? nil : report, rejects: rejects,
                       rows: export.stdout.replacingOccurrences(of: "\"", with: ""))
    }

    static func value(_ outcome: Outcome, _ code: String) -> String? {
        outcome.rows.split(whereSeparator: \.isNewline).first { $0.hasPrefix("\(code),") }.map(String.init)
    }

    static func warnings(_ outcome: Outcome) -> [String] { outcome.report?["warnings"] as? [String] ?? [] }
    static func count(_ outcome: Outcome, _ name: String) -> Int? { (outcome.report?["totals"] as? [String: Any])?[name] as? Int }

    @Test(arguments: [("quakes", "k00010,56,other2", "k14000,77,dup2"), ("quakes-first", "k00010,55,other", "k14000,1400,e"),
                      ("quakes-strict", "k00010,55,other", "k14000,1400,e")])
    func eachChoiceStoresAndNamesAlikeOnBothBackends(mapping: String, k00010: String, k14000: String) throws {
        let cluster = try PostgresTestCluster.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let files = try Self.files(directory)
        for reload in [false, true] {
            let onSQLite = try Self.run(mapping, ["big.ndjson", "other.ndjson"], store: directory.path("\(mapping)-\(reload).sqlite"), reload: reload, files: files)
            let onPostgres = try Self.run(mapping, ["big.ndjson", "other.ndjson"], store: try cluster.newStoreURL(), reload: reload, files: files)
            #expect(onSQLite.status == 0, "\(onSQLite)")
            #expect(onPostgres == onSQLite)
            #expect(Self.value(onSQLite, "k00010") == k00010)
            #expect(Self.value(onSQLite, "k14000") == k14000)
            let rejected = mapping == "quakes-strict"
            #expect(Self.count(onSQLite, "duplicates") == (rejected ? 1 : 5))
            #expect(Self.count(onSQLite, "rejected") == (rejected ? 4 : 0))
            let named = Self.warnings(onSQLite) + onSQLite.rejects
            #expect(named.contains { $0.contains("big.ndjson:12001:1 (record 12000): Quake key code='k00010' repeats record 10 of the same feed") }
                        || named.contains { $0.contains("big.ndjson:12000 duplicate key code='k00010': record 10 of the same feed has it") }, "\(named)")
            #expect(named.contains { $0.contains("k14000") && $0.contains("record 14001 of the same feed") }, "\(named)")
            #expect(Self.warnings(onSQLite).contains { $0.contains("other.ndjson:1:1 (record 0): Quake key code='k00010' repeats record 10 of ")
                                                            && $0.contains("big.ndjson; its attributes merged") }, "\(named)")
            #expect(named.count == 5, "\(named)")
        }
    }

    /// Repeats inside the first batch (PostgreSQL's all-staged first load) and the reload.
    @Test(arguments: [("quakes", "a,1.7,blast"), ("quakes-first", "a,1,earthquake"), ("quakes-strict", "a,1,earthquake")])
    func repeatsInOneBatch(mapping: String, a: String) throws {
        let cluster = try PostgresTestCluster.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let files = try Self.files(directory)
        for reload in [false, true] {
            let onSQLite = try Self.run(mapping, ["day.ndjson"], store: directory.path("\(mapping)-\(reload).sqlite"), reload: reload, files: files)
            let onPostgres = try Self.run(mapping, ["day.ndjson"], store: try cluster.newStoreURL(), reload: reload, files: files)
            #expect(onSQLite.status == 0, "\(onSQLite)")
            #expect(onPostgres == onSQLite)
            #expect(Self.value(onSQLite, "a") == a)
            // The feed leaves `type` out of two records: counted in a warning of its own.
            let named = Self.warnings(onSQLite).filter { !$0.contains("is absent from") } + onSQLite.rejects
            #expect(Self.warnings(onSQLite).contains { $0.contains("field '/type' is absent from 2 of 5 records") })
            #expect(named.count == 2 && named.allSatisfy { $0.contains("code='a'") && $0.contains("record 0 of the same feed") }, "\(named)")
        }
    }

    /// Rejected repeats count toward --max-rejects: over it, the run stores nothing (65).
    @Test func rejectedRepeatsOverTheLimitStoreNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let files = try Self.files(directory)
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--model", files["model.yaml"] ?? "", "--store", store, "--mapping", "quakes-strict", files["day.ndjson"] ?? ""])
        #expect(run.status == 65)
        #expect(run.stderr.contains("day.ndjson:3:1 (record 2): Quake: duplicate key code='a': record 0 of the same feed has it"), "\(run.stderr)")
        let export = FileManager.default.fileExists(atPath: store) ? try importer(["export", "--store", store, "--format", "csv"]).stdout : ""
        #expect(!export.contains("a,"), "\(export)")
    }

    /// More repeats than are named one by one: the rest are counted.
    @Test func manyRepeatsAreCountedPastTheNamedOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let files = try Self.files(directory)
        let twice = directory.path("twice.ndjson")
        let once = (0..<30).map { #"{"id":"r\#($0)","mag":1,"type":"t"}"# }.joined(separator: "\n") + "\n"
        try (once + once).write(toFile: twice, atomically: true, encoding: .utf8)
        let run = try importer(["run", "--model", files["model.yaml"] ?? "", "--store", directory.path("s.sqlite"), "--mapping", "quakes", "--format", "json", twice])
        let warnings = (run.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.count == 11, "\(warnings)")
        #expect(warnings.first?.contains("twice.ndjson:31:1 (record 30): Quake key code='r0' repeats record 0 of the same feed") == true, "\(warnings)")
        #expect(warnings.last == "Quake: 20 more repeated keys not named (the first 10 are)")
    }

    @Test func anUnknownChoiceIsAnInvalidModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("model.yaml")
        try Self.model.replacingOccurrences(of: "duplicates: first", with: "duplicates: sometimes").write(toFile: path, atomically: true, encoding: .utf8)
        let check = try importer(["model", "check", path])
        #expect(check.status == 78)
        #expect(check.stderr.contains("'sometimes' is not one of: last, first, reject"), "\(check.stderr)")
    }
}
