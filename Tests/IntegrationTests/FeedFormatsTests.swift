import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

@Suite struct FeedFormatsTests {
    /// (model, feed) pairs holding the same catalogue in every supported format.
    static let forms = [
        ("fireball.yaml", "fireball-2024.json"),
        ("fireball-ndjson.yaml", "json/fireball-2024.ndjson"),
        ("fireball-json-nested.yaml", "json/fireball-2024-nested.json"),
        ("fireball-xml-elements.yaml", "xml/fireball-2024-elements.xml"),
        ("fireball-xml-attributes.yaml", "xml/fireball-2024-attributes.xml"),
        ("cneos-csv.yaml", "csv/cneos-fireball-2024.csv"),
    ]

    /// The store rows (without ids) and the history changes (without record ids and tokens).
    private func contents(of store: String) throws -> (rows: [[Value]], changes: [String]) {
        let connection = try SQLiteConnection(path: store, create: false)
        let rows = try connection.rows("SELECT date, energy, impact_energy, latitude, longitude, altitude, velocity, vx, vy, vz FROM fireball ORDER BY date")
        let history = try importer(["history", "--store", store, "--format", "ndjson"])
        let changes = try history.stdout.split(separator: "\n").map { line -> String in
            var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in ["record_id", "token", "timestamp", "author"] { object[key] = nil }
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }.sorted()
        return (rows, changes)
    }

    @Test func everyFormatOfTheSameCatalogueGivesTheSameRowsAndHistory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var reference: (rows: [[Value]], changes: [String])?
        for (model, feed) in Self.forms {
            let store = directory.path("\(model).sqlite")
            let run = try importer(["run", "--store", store, "--model", sample("models/\(model)"), sample(feed)])
            #expect(run.status == 0, "\(model): \(run.stderr)")
            #expect(run.stdout.contains("Fireball: 10 inserted"), "\(model)")
            let found = try contents(of: store)
            #expect(found.rows.count == 10)
            if let reference {
                #expect(found.rows == reference.rows, "\(model)")
                #expect(found.changes == reference.changes, "\(model)")
            } else {
                reference = found
            }
            #expect(try importer(["views", "verify", "--store", store]).status == 0)
        }
    }

    @Test func theFormatComesFromTheMappingTheOptionOrTheExtension() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // The NDJSON model's mapping reads a copy named .jsonl too; --feed-format overrides.
        let copy = directory.path("feed.txt")
        try FileManager.default.copyItem(atPath: sample("json/fireball-2024.ndjson"), toPath: copy)
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--model", sample("models/fireball-ndjson.yaml"), "--feed-format", "ndjson", copy])
        #expect(run.status == 0, "\(run.stderr)")
        let stdin = try importer(["run", "--store", directory.path("t.sqlite"), "--model", sample("models/fireball-ndjson.yaml"), "-"],
                                 stdin: try Data(contentsOf: URL(fileURLWithPath: sample("json/fireball-2024.ndjson"))))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(stdin.stdout.contains("10 inserted"))
        let wrongFeed = try importer(["run", "--store", directory.path("u.sqlite"), "--feed", "nope", sample("fireball-2024.json")])
        #expect(wrongFeed.status == 64, "a mapping name is a command-line choice: a usage error")
        #expect(wrongFeed.stderr.contains("unknown feed mapping 'nope' (the model has: fireball-api)"))
    }

    @Test(arguments: ["billion-laughs.xml", "xxe-local-file.xml", "external-dtd.xml"])
    func maliciousXMLIsRefusedSafely(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--model", sample("models/fireball-xml-elements.yaml"), sample("xml/malicious/\(name)")])
        #expect(run.status == 65)
        #expect(run.stderr.contains("DTDs and entity declarations are not allowed"))
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !hostname.isEmpty {
            #expect(!run.stdout.contains(hostname) && !run.stderr.contains(hostname))
        }
        #expect(!FileManager.default.fileExists(atPath: store), "a failed first run leaves no store")
    }

    @Test func malformedFilesOfEveryFormatNameTheirLocation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let truncatedXML = directory.path("truncated.xml")
        try Data("<fireballs>\n  <fireball><date>2024-01-01 00:00:00</date>\n  <fireball>".utf8).write(to: URL(fileURLWithPath: truncatedXML))
        let brokenNDJSON = directory.path("broken.ndjson")
        try Data("{\"date\":\"2024-01-01 00:00:00\"}\n{\"date\": }\n".utf8).write(to: URL(fileURLWithPath: brokenNDJSON))
        let cases = [
            ("fireball-xml-elements.yaml", truncatedXML, "truncated.xml:3:"),
            ("fireball-ndjson.yaml", brokenNDJSON, "broken.ndjson:2:10"),
            ("cneos-csv.yaml", sample("csv/malformed/missing-field.csv"), "missing-field.csv:4:1"),
            ("cneos-csv.yaml", sample("csv/malformed/unterminated-quote.csv"), "unterminated-quote.csv:"),
        ]
        for (model, feed, location) in cases {
            let store = directory.path("s.sqlite")
            try importer(["run", "--store", store, sample("fireball-2024.json")])
            let before = try sha256(store)
            let run = try importer(["run", "--store", store, "--model", sample("models/\(model)"), feed])
            #expect(run.status == 65, "\(feed)")
            #expect(run.stderr.contains(location), "\(run.stderr)")
            #expect(try sha256(store) == before)
        }
    }
}

@Suite struct RejectsAndDryRunTests {
    static let feed = sample("rejects/fireball-2024-rejects.ndjson")
    static let model = sample("models/fireball-ndjson.yaml")

    @Test func rejectsAreExactAndKeptWithTheRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let file = directory.path("rejects.ndjson")
        let run = try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "3", "--rejects", file, "--format", "json", Self.feed])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(run.json as? [String: Any])
        #expect((report["totals"] as? [String: Int])?["rejected"] == 3)
        #expect((report["totals"] as? [String: Int])?["inserted"] == 3)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let rejects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rejects.count == 3)
        #expect(rejects.map { $0["line"] as? Int } == [2, 5, 6])
        #expect(rejects.map { $0["column"] as? Int } == [40, 1, 68])
        #expect(rejects.map { $0["record"] as? Int } == [1, 3, 4])
        #expect(rejects.map { $0["attribute"] as? String } == ["energy", "date", "latitude"])
        #expect(rejects[0]["value"] as? String == "2.1 J")
        #expect(rejects[1]["value"] is NSNull)
        #expect(rejects[2]["value"] as? String == "4.1")
        #expect(rejects[2]["reason"] as? String == "the sign field 'lat-dir' is 'Q'; expected S or N")

        let stored = try importer(["rejects", "show", "--store", store, "--format", "json"])
        let kept = try #require((stored.json as? [String: Any])?["rejects"] as? [[String: Any]])
        #expect(kept.count == 3)
        #expect((stored.json as? [String: Any])?["run"] as? Int == 1)
        #expect(kept.map { $0["line"] as? Int } == [2, 5, 6])
        let missing = try importer(["rejects", "show", "99", "--store", store])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no rejects kept for run 99 (see importer rejects list)"))
        #expect(try importer(["rejects", "show", "1", "--store", store]).status == 0)
        #expect(try importer(["rejects", "list", "--store", store]).stdout.contains("run 1 at"))
        #expect(try importer(["rejects", "clear", "--store", store]).stdout.contains("Cleared 3 reject(s)."))
        #expect(try importer(["rejects", "show", "--store", store]).stdout.contains("No rejects."))
    }

    /// Formats a command cannot write are usage errors, not silently another format.
    @Test func rejectsListRefusesFormatsItCannotWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "3", Self.feed]).status == 0)
        let csv = try importer(["rejects", "list", "--store", store, "--format", "csv"])
        #expect(csv.status == 64)
        #expect(csv.stdout.isEmpty)
        #expect(csv.stderr.contains("'csv' is invalid for '--format"), "\(csv.stderr)")
        #expect(try importer(["rejects", "list", "--store", store, "--format", "json"]).json is [[String: Any]])
    }

    @Test func maxRejectsIsABoundaryOnBothSides() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let before = try sha256(store)
        let over = try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "2", Self.feed])
        #expect(over.status == 65)
        #expect(over.stderr.contains("3 rejected record(s), more than --max-rejects 2"))
        #expect(try sha256(store) == before)
        let byDefault = try importer(["run", "--store", store, "--model", Self.model, Self.feed])
        #expect(byDefault.status == 65)
        let at = try importer(["run", "--store", store, "--model", Self.model, "--max-rejects", "3", Self.feed])
        #expect(at.status == 0, "\(at.stderr)")
        #expect(try sha256(store) != before)
    }

    @Test func checkReportsWithoutWriting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let check = try importer(["check", "--model", Self.model, "--format", "json", Self.feed], directory: directory.url)
        #expect(check.status == 65)
        let result = try #require(check.json as? [String: Any])
        #expect(result["rejected"] as? Int == 3)
        let feed = try #require((result["feeds"] as? [[String: Any]])?.first)
        #expect(feed["records"] as? Int == 6)
        #expect(feed["mapped"] as? Int == 3)
        #expect((feed["rejects"] as? [[String: Any]])?.map { $0["line"] as? Int } == [2, 5, 6])
        #expect(try importer(["check", "--model", Self.model, "--max-rejects", "3", Self.feed]).status == 0)
        #expect(try importer(["check", sample("fireball-2026.json")]).stdout.contains("11 record(s) of Fireball (mapping fireball-api, nasa-columnar): 11 would be imported, 0 rejected"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aDryRunPrintsTheSameReportAndLeavesTheStoreByteIdentical() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let before = try sha256(store)
        let dry = try importer(["run", "--store", store, "--sync", "--dry-run", "--format", "json", sample("fireball-2026.json")])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try sha256(store) == before)
        let real = try importer(["run", "--store", store, "--sync", "--format", "json", sample("fireball-2026.json")])
        func comparable(_ execution: Execution) throws -> NSDictionary {
            var report = try #require(execution.json as? [String: Any])
            var transaction = try #require(report["transaction"] as? [String: Any])
            // A dry run's transaction is not written: it has no token, and says so.
            #expect(report["dry_run"] as? Bool == (execution.stdout == dry.stdout))
            #expect((transaction["token"] is NSNull) == (execution.stdout == dry.stdout))
            for key in ["timestamp", "process_id", "token"] { transaction[key] = nil }
            report["dry_run"] = nil
            report["transaction"] = transaction
            var views = try #require(report["views"] as? [String: [String: Any]])
            for (name, var effect) in views { effect["rebuilt"] = nil; views[name] = effect }
            report["views"] = views
            return report as NSDictionary
        }
        #expect(try comparable(dry) == comparable(real))
        // On a store that does not exist, nothing is created.
        let absent = directory.path("absent.sqlite")
        #expect(try importer(["run", "--store", absent, "--dry-run", sample("fireball-2024.json")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: absent))
    }
}
