import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// No silent value in any dialect, through the built binary: 64-bit ids, a renamed CSV column, a
/// field absent from some records, an upstream unit change, a cut CSV, HTML saved as CSV, Latin-1
/// and TSV exports with preambles and second tables, local times in a named zone across DST,
/// numbers written for people, a byte order mark, an NDJSON envelope, a misspelt XML path.
@Suite struct DialectFidelityTests {
    /// A store on `backend` in `directory` (a fresh database of a throwaway cluster for PostgreSQL).
    static func store(_ backend: String, in directory: TemporaryDirectory) throws -> (store: String, cleanup: () -> Void) {
        guard backend == "postgres" else { return (directory.path("store.sqlite"), {}) }
        let cluster = try PostgresTestCluster.start()
        let store = try cluster.newStoreURL()
        return (store, { try? cluster.dropStore(store) })
    }

    /// The rows of `sql` as CSV lines, header first (text quoted, numbers bare).
    static func rows(_ store: String, _ sql: String) throws -> [String] {
        let query = try importer(["query", "--store", store, "--format", "csv", sql])
        try #require(query.status == 0, "\(query.stderr)")
        // RFC 4180 lines end with CRLF: one line per Character "\r\n".
        return query.stdout.split(separator: "\r\n").map(String.init)
    }

    static func write(_ text: String, _ name: String, in directory: TemporaryDirectory) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.path(name)))
    }

    static let postModel = """
        entities:
          - name: Post
            key: [post_id]
            attributes:
              - {name: post_id, type: integer, required: true}
              - {name: likes, type: integer}
        feeds:
          - name: posts
            entity: Post
            format: ndjson
            fields:
              - {attribute: post_id, field: /id}
              - {attribute: likes, field: /likes}
          - name: posts-csv
            entity: Post
            format: csv
            fields:
              - {attribute: post_id, field: id}
              - {attribute: likes, field: likes}
        """

    /// Snowflake-style ids (past 2^53) stay two records with their own digits, from NDJSON and CSV,
    /// on both backends; a value past 64 bits is a located reject.
    @Test(arguments: ["sqlite", "postgres"]) func sixtyFourBitIdsAreStoredExactly(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, cleanup) = try Self.store(backend, in: directory)
        defer { cleanup() }
        try Self.write(Self.postModel, "model.yaml", in: directory)
        try Self.write(#"{"id":1234567890123456789,"likes":9007199254740993}"# + "\n" + #"{"id":1234567890123456790,"likes":1}"# + "\n", "posts.ndjson", in: directory)
        try Self.write("id,likes\n9223372036854775807,-9223372036854775808\n1234567890123456790,2\n", "posts.csv", in: directory)
        let first = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", "posts.ndjson"], directory: directory.url)
        #expect(first.status == 0 && !first.stdout.contains("repeats"), "\(first.stdout)\(first.stderr)")
        let second = try importer(["run", "--store", store, "--model", "model.yaml", "posts.csv"], directory: directory.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try Self.rows(store, #"SELECT post_id, likes FROM "post" ORDER BY post_id"#)
                == [#""post_id","likes""#, "1234567890123456789,9007199254740993", "1234567890123456790,2", "9223372036854775807,-9223372036854775808"])
        try Self.write("id,likes\n9223372036854775808,1\n", "over.csv", in: directory)
        let over = try importer(["run", "--store", store, "--model", "model.yaml", "over.csv"], directory: directory.url)
        #expect(over.status == 65 && over.stderr.contains("over.csv:2:1") && over.stderr.contains("outside the 64-bit range"), "\(over.stderr)")
    }

    static let quakeCSVModel = """
        entities:
          - name: Quake
            key: [code]
            attributes:
              - {name: code, type: text, required: true}
              - {name: mag, type: real}
              - {name: place, type: text}
        feeds:
          - name: quakes
            entity: Quake
            format: csv
            fields:
              - {attribute: code, field: id}
              - {attribute: mag, field: mag}
              - {attribute: place, field: place}
        """

    /// A CSV whose upstream renamed a mapped column warns as a JSON field absent from every record
    /// does, and keeps the stored values; a CSV cut inside its last field warns, and is refused
    /// under `--require-final-newline`; HTML saved as CSV, a `;` file and a missing required column
    /// are 65 naming what they are, in `check` as in `run`, the store untouched.
    @Test func csvFaultsAreNamedNeverSilent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.write(Self.quakeCSVModel, "model.yaml", in: directory)
        try Self.write("id,mag,place\na1,1.5,Here\na2,2.5,There\n", "day1.csv", in: directory)
        try #require(try importer(["run", "--store", store, "--model", "model.yaml", "day1.csv"], directory: directory.url).status == 0)

        try Self.write("id,magnitude,place\na1,1.6,Here\na2,2.5,There\n", "renamed.csv", in: directory)
        let renamed = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", "renamed.csv"], directory: directory.url)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let warnings = (renamed.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("the header has no column 'mag'") && $0.contains("stored values kept") }, "\(warnings)")
        #expect(try Self.rows(store, #"SELECT code, mag FROM "quake" ORDER BY code"#) == [#""code","mag""#, #""a1",1.5"#, #""a2",2.5"#])

        try Self.write("id,mag,place\na1,1.5,Here\na2,2.5,Th", "cut.csv", in: directory)
        let before = try sha256(store)
        let strict = try importer(["run", "--store", store, "--model", "model.yaml", "--require-final-newline", "cut.csv"], directory: directory.url)
        #expect(strict.status == 65 && strict.stderr.contains("cut.csv:3:1") && strict.stderr.contains("without a line break"), "\(strict.stderr)")
        #expect(try sha256(store) == before)
        let cut = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", "cut.csv"], directory: directory.url)
        #expect(cut.status == 0 && ((cut.json as? [String: Any])?["warnings"] as? [String] ?? []).contains { $0.contains("may be cut") }, "\(cut.stdout)")

        let cases = [("page.csv", "<!DOCTYPE html>\n<html><body>Too many requests</body></html>\n", "looks like HTML"),
                     ("semicolons.csv", "id;mag;place\na1;1.5;Here\n", "looks ';'-separated"),
                     ("tabs.csv", "id\tmag\tplace\na1\t1.5\tHere\n", "looks tab-separated")]
        let settled = try sha256(store)
        for (name, text, message) in cases {
            try Self.write(text, name, in: directory)
            for command in [["run", "--store", store], ["check"]] {
                let run = try importer(command + ["--model", "model.yaml", name], directory: directory.url)
                #expect(run.status == 65 && run.stderr.contains(message), "\(command[0]) \(name): \(run.status) \(run.stderr)")
            }
        }
        #expect(try sha256(store) == settled)
        let required = Self.quakeCSVModel.replacingOccurrences(of: "{name: place, type: text}", with: "{name: place, type: text, required: true}")
        try Self.write(required, "required.yaml", in: directory)
        try Self.write("id,mag\na1,1.5\n", "noplace.csv", in: directory)
        let lacking = try importer(["check", "--model", "required.yaml", "noplace.csv"], directory: directory.url)
        #expect(lacking.status == 65 && lacking.stderr.contains("lacks the column of required Quake attribute 'place'"), "\(lacking.stderr)")
    }

    /// A field absent from some records (not an explicit null) is said in the report's warnings with
    /// its count, and in the metrics.
    @Test func aFieldAbsentFromSomeRecordsIsCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.write(Self.quakeCSVModel.replacingOccurrences(of: "format: csv", with: "format: ndjson")
            .replacingOccurrences(of: "field: id}", with: "field: /id}").replacingOccurrences(of: "field: mag}", with: "field: /mag}")
            .replacingOccurrences(of: "field: place}", with: "field: /place}"), "model.yaml", in: directory)
        let lines = (1 ... 5).map { index in index <= 2 ? #"{"id":"q\#(index)","place":"P"}"# : #"{"id":"q\#(index)","mag":\#(index),"place":"P"}"# }
        try Self.write(lines.joined(separator: "\n") + "\n", "day.ndjson", in: directory)
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", "--metrics-file", directory.path("m.prom"),
                                "--job", "quakes", "day.ndjson"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = (run.json as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("field '/mag' is absent from 2 of 5 records") }, "\(warnings)")
        let metrics = try String(contentsOfFile: directory.path("m.prom"), encoding: .utf8)
        #expect(metrics.contains(#"importer_last_run_absent_field_records{importer_job="quakes",entity="Quake",attribute="mag"} 2"#), "\(metrics)")
    }

    /// A field first met after the first 10,000 records is stored from a file (and from a URL's
    /// downloaded body) on both backends; from standard input, which cannot be read twice, it keeps
    /// its stored values with a warning that counts the records holding it.
    @Test(arguments: ["sqlite", "postgres"]) func aFieldFirstMetLateIsStored(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, cleanup) = try Self.store(backend, in: directory)
        defer { cleanup() }
        try Self.write(Self.postModel, "model.yaml", in: directory)
        let lines = (1 ... 10_050).map { $0 <= 10_020 ? #"{"id":\#($0)}"# : #"{"id":\#($0),"likes":\#($0 * 2)}"# }
        try Self.write(lines.joined(separator: "\n") + "\n", "posts.ndjson", in: directory)
        let piped = try importer(["run", "--store", store, "--model", "model.yaml", "--mapping", "posts", "-"],
                                 stdin: try Data(contentsOf: URL(fileURLWithPath: directory.path("posts.ndjson"))), directory: directory.url)
        #expect(piped.status == 0 && piped.stderr.contains("field '/likes' first appears after 10000 records without it, in 30 record(s)"), "\(piped.stderr)")
        #expect(try Self.rows(store, "SELECT count(likes) AS n FROM post") == [#""n""#, "0"])
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "posts.ndjson"], directory: directory.url)
        #expect(run.status == 0 && !run.stderr.contains("first appears"), "\(run.stderr)")
        let stored = try Self.rows(store, "SELECT count(likes) AS n, sum(likes) AS s, min(post_id) AS m FROM post WHERE likes IS NOT NULL")
        #expect(stored.last == "30,\((10_021 ... 10_050).reduce(0) { $0 + $1 * 2 }),10021", "\(stored)")
    }

    static let timedModel = """
        entities:
          - name: Event
            key: [code]
            attributes:
              - {name: code, type: text, required: true}
              - {name: time, type: datetime}
              - {name: mag, type: real}
        feeds:
          - name: events
            entity: Event
            format: ndjson
            fields:
              - {attribute: code, field: /code}
              - {attribute: time, field: /time, format: FORMAT}
              - {attribute: mag, field: /mag}
        """

    /// A bound `--max-updated` cannot read is a usage error (64) naming the value, and no store is made.
    @Test(arguments: ["abc", "150%", "-5"]) func aBadMassUpdateBoundIsAUsageError(value: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--max-updated=\(value)", sample("fireball-2024.json")])
        #expect(run.status == 64 && run.stderr.contains("--max-updated"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }

    /// The upstream switched `time` from epoch milliseconds to seconds: every stored record would be
    /// moved to January 1970. Refused (65) naming the attribute, the count and examples, the store
    /// untouched, on both backends; `--max-updated 100%` lets it through.
    @Test(arguments: ["sqlite", "postgres"]) func aMassUpdateIsRefused(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (store, cleanup) = try Self.store(backend, in: directory)
        defer { cleanup() }
        try Self.write(Self.timedModel.replacingOccurrences(of: "FORMAT", with: "epoch-ms"), "ms.yaml", in: directory)
        let events = (1 ... 6).map { (code: "e\($0)", ms: 1_764_000_000_000 + Int64($0) * 60_000) }
        try Self.write(events.map { #"{"code":"\#($0.code)","time":\#($0.ms),"mag":1}"# }.joined(separator: "\n") + "\n", "ms.ndjson", in: directory)
        try #require(try importer(["run", "--store", store, "--model", "ms.yaml", "ms.ndjson"], directory: directory.url).status == 0)
        // The same instants in seconds, read with the old (milliseconds) mapping: 1970.
        try Self.write(events.map { #"{"code":"\#($0.code)","time":\#($0.ms / 1000),"mag":1}"# }.joined(separator: "\n") + "\n", "s.ndjson", in: directory)
        let history = try importer(["history", "--store", store, "--format", "json"]).stdout
        let refused = try importer(["run", "--store", store, "--model", "ms.yaml", "--format", "json", "s.ndjson"], directory: directory.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("would change Event.time on 6 of the 6 stored records (100%), e.g. 2025-11-24 16:01:00 → 1970-01-21 10:00:00.060"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--max-updated"), "\(refused.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "json"]).stdout == history)
        // A few records revised is no storm.
        try Self.write(#"{"code":"e1","time":1764000060000,"mag":2}"# + "\n", "one.ndjson", in: directory)
        #expect(try importer(["run", "--store", store, "--model", "ms.yaml", "one.ndjson"], directory: directory.url).status == 0)
        let allowed = try importer(["run", "--store", store, "--model", "ms.yaml", "--max-updated", "100%", "s.ndjson"], directory: directory.url)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    /// A German municipal export: Windows-1252, `;`, two preamble lines, a comment, a sum row after
    /// a blank line; and a TSV with CRLF line ends. Every stored value as in the file; `check` says
    /// how it read them.
    @Test func exportsInOtherDialectsImportStraightFromTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.write("""
            entities:
              - name: Gauge
                key: [gauge_id]
                attributes:
                  - {name: gauge_id, type: text, required: true}
                  - {name: name, type: text}
                  - {name: level, type: real}
            feeds:
              - name: pegel
                entity: Gauge
                format: csv
                csv: {delimiter: ";", encoding: windows-1252, skip-rows: 2, comment: "#", end: blank-line}
                fields:
                  - {attribute: gauge_id, field: Messstelle}
                  - {attribute: name, field: Name}
                  - {attribute: level, field: Pegel, format: {thousands: ".", decimal: ","}}
              - name: gauges-tsv
                entity: Gauge
                format: csv
                fields:
                  - {attribute: gauge_id, field: id}
                  - {attribute: name, field: name}
                  - {attribute: level, field: level}
            """, "model.yaml", in: directory)
        var export = Array("Export Pegelst".utf8) + [0xE4] + Array("nde\r\nStand: 01.12.2025\r\nMessstelle;Name;Pegel\r\n# Messnetz Nord\r\n".utf8)
        export += Array("001;M".utf8) + [0xFC] + Array("nchen \u{22}Isar\u{22};1.234,5\r\n002;K".utf8) + [0xF6] + Array("ln ".utf8) + [0x96] + Array(" Rhein;12,25\r\n".utf8)
        export += Array("\r\nSumme;;1.246,75\r\nBemerkung;x\r\n".utf8)
        try Data(export).write(to: URL(fileURLWithPath: directory.path("pegel.csv")))
        let check = try importer(["check", "--model", "model.yaml", "--mapping", "pegel", "pegel.csv"], directory: directory.url)
        #expect(check.status == 0 && check.stdout.contains("delimiter ';', encoding windows-1252, 2 preamble lines skipped"), "\(check.stdout)\(check.stderr)")
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--mapping", "pegel", "pegel.csv"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.rows(store, #"SELECT gauge_id, name, level FROM "gauge" ORDER BY gauge_id"#)
                == [#""gauge_id","name","level""#, #""001","München ""Isar""",1234.5"#, #""002","Köln – Rhein",12.25"#])
        try Data("id\tname\tlevel\r\n003\tBonn\t3.5\r\n004\t\"Koblenz, Deutsches Eck\"\t4\r\n".utf8).write(to: URL(fileURLWithPath: directory.path("more.tsv")))
        let tsv = try importer(["run", "--store", store, "--model", "model.yaml", "--mapping", "gauges-tsv", "more.tsv"], directory: directory.url)
        #expect(tsv.status == 0, "\(tsv.stderr)")
        #expect(try Self.rows(store, #"SELECT gauge_id, name, level FROM "gauge" WHERE gauge_id > '002' ORDER BY gauge_id"#)
                == [#""gauge_id","name","level""#, #""003","Bonn",3.5"#, #""004","Koblenz, Deutsches Eck",4"#])
        // A byte Windows-1252 does not define is a located error, never a replacement character.
        try Data(Array("x\r\ny\r\nMessstelle;Name;Pegel\r\n009;Bad".utf8) + [0x81] + Array(";1\r\n".utf8)).write(to: URL(fileURLWithPath: directory.path("bad.csv")))
        let bad = try importer(["run", "--store", store, "--model", "model.yaml", "--mapping", "pegel", "bad.csv"], directory: directory.url)
        #expect(bad.status == 65 && bad.stderr.contains("bad.csv:4:8") && bad.stderr.contains("0x81"), "\(bad.stderr)")
    }

    /// Local times in America/Los_Angeles across both DST changes of 2025, stored as UTC (worked out
    /// by hand from the zone's rules: -8 h in winter, -7 h in summer); the repeated hour is read as
    /// its first occurrence and counted, the skipped one rejected with its reason.
    @Test func localTimesInANamedZoneCrossDST() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.write(Self.timedModel.replacingOccurrences(of: "format: FORMAT", with: #"format: "%Y-%m-%d %H:%M", zone: America/Los_Angeles"#), "model.yaml", in: directory)
        let local = ["2025-03-09 01:59", "2025-03-09 03:00", "2025-07-01 12:00", "2025-11-02 00:59", "2025-11-02 01:30", "2025-11-02 02:00"]
        let utc = ["2025-03-09 09:59:00", "2025-03-09 10:00:00", "2025-07-01 19:00:00", "2025-11-02 07:59:00", "2025-11-02 08:30:00", "2025-11-02 10:00:00"]
        try Self.write(local.enumerated().map { #"{"code":"t\#($0.offset)","time":"\#($0.element)"}"# }.joined(separator: "\n") + "\n", "la.ndjson", in: directory)
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "--format", "json", "la.ndjson"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(((run.json as? [String: Any])?["warnings"] as? [String] ?? []).contains { $0.contains("1 local time of attribute time happened twice in America/Los_Angeles") })
        #expect(try Self.rows(store, #"SELECT time FROM "event" ORDER BY code"#) == [#""time""#] + utc.map { "\"\($0)\"" })
        try Self.write(#"{"code":"gap","time":"2025-03-09 02:30"}"# + "\n", "gap.ndjson", in: directory)
        let gap = try importer(["run", "--store", store, "--model", "model.yaml", "gap.ndjson"], directory: directory.url)
        #expect(gap.status == 65 && gap.stderr.contains("does not exist in America/Los_Angeles"), "\(gap.stderr)")
    }

    /// A JSON or NDJSON file with a UTF-8 byte order mark imports (RFC 8259 allows ignoring it);
    /// `records:` on an NDJSON mapping, which would be ignored, is refused by the model check.
    @Test func aByteOrderMarkIsAcceptedAndAnIgnoredRecordsPointerRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try Self.write(Self.postModel, "model.yaml", in: directory)
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"id":1,"likes":2}"#.utf8) + [0x0A]).write(to: URL(fileURLWithPath: directory.path("bom.ndjson")))
        let run = try importer(["run", "--store", store, "--model", "model.yaml", "bom.ndjson"], directory: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        try Self.write(Self.postModel.replacingOccurrences(of: "format: ndjson", with: "format: ndjson\n    records: /items"), "envelope.yaml", in: directory)
        let check = try importer(["model", "check", "envelope.yaml"], directory: directory.url)
        #expect(check.status == 78 && check.stderr.contains("'records' is not used by ndjson feeds"), "\(check.stderr)")
    }

    /// A gzip file and an HTML page saved as `.xml` are named as what they are, not by the byte or
    /// the DTD that stopped the reader.
    @Test func aGzipFileAndAnHTMLPageAreNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(sample("fireball-2024.json"))' > '\(directory.path("feed.json"))'"]
        try gzip.run()
        gzip.waitUntilExit()
        let zipped = try importer(["run", "--store", directory.path("s.sqlite"), directory.path("feed.json")])
        #expect(zipped.status == 65 && zipped.stderr.contains("gzip-compressed"), "\(zipped.stderr)")
        try Self.write("<!DOCTYPE html>\n<html><body>Sign in</body></html>\n", "page.xml", in: directory)
        let page = try importer(["run", "--store", directory.path("s.sqlite"), "--model", sample("models/fireball-xml-elements.yaml"), directory.path("page.xml")])
        #expect(page.status == 65 && page.stderr.contains("an HTML page (<!DOCTYPE html>), not an XML feed"), "\(page.stderr)")
    }

    /// A refused empty snapshot gives its reason, not first a page of fields "absent" from no record.
    @Test func aRefusedEmptySnapshotSaysOnlyWhy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = sample("models/usgs-geojson.yaml")
        try #require(try importer(["run", "--store", store, "--model", model, sample("geojson/usgs-day-1.geojson")]).status == 0)
        try Self.write(#"{"type":"FeatureCollection","metadata":{"count":0},"features":[]}"#, "empty.geojson", in: directory)
        let run = try importer(["run", "--store", store, "--model", model, "--sync", "--format", "json", directory.path("empty.geojson")])
        #expect(run.status == 65, "\(run.stderr)")
        let document = try #require(run.json as? [String: Any])
        #expect((document["warnings"] as? [String]) == [], "\(document)")
        #expect((document["errors"] as? [String])?.first?.contains("holds no records") == true, "\(document)")
    }

    /// `{"features": null}` is not an empty feed (`[]` is): a shape error, so a sync never reads it
    /// as "every record is gone".
    @Test func nullWhereTheRecordsShouldBeIsAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try Self.write(Self.postModel.replacingOccurrences(of: "format: ndjson", with: "format: json\n    records: /features"), "model.yaml", in: directory)
        try Self.write(#"{"type":"FeatureCollection","features":null}"#, "null.json", in: directory)
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--model", "model.yaml", "--mapping", "posts", "null.json"], directory: directory.url)
        #expect(run.status == 65 && run.stderr.contains("an array of records at /features"), "\(run.stderr)")
        try Self.write(#"{"type":"FeatureCollection","features":[]}"#, "empty.json", in: directory)
        #expect(try importer(["run", "--store", directory.path("s.sqlite"), "--model", "model.yaml", "--mapping", "posts", "empty.json"],
                             directory: directory.url).status == 0)
    }

    /// A misspelt last step of an XML records path (`atom:entri`) is 65 naming the children found;
    /// a records element holding other elements but no record is read as empty with a warning.
    @Test func aRecordsPathWhoseLastStepMatchesNothingIsNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = """
            entities:
              - name: Entry
                key: [entry_id]
                attributes:
                  - {name: entry_id, type: text, required: true}
                  - {name: title, type: text}
            feeds:
              - name: atom
                entity: Entry
                format: xml
                records: /atom:feed/atom:STEP
                namespaces: {atom: "http://www.w3.org/2005/Atom"}
                fields:
                  - {attribute: entry_id, field: "atom:id"}
                  - {attribute: title, field: "atom:title"}
            """
        try Self.write(model.replacingOccurrences(of: "STEP", with: "entri"), "misspelt.yaml", in: directory)
        try Self.write(model.replacingOccurrences(of: "STEP", with: "entry"), "right.yaml", in: directory)
        let feed = #"<feed xmlns="http://www.w3.org/2005/Atom"><title>Quakes</title><id>f</id><entry><id>e1</id><title>M 2</title></entry></feed>"#
        try Self.write(feed, "feed.xml", in: directory)
        let misspelt = try importer(["run", "--store", directory.path("s.sqlite"), "--model", "misspelt.yaml", "feed.xml"], directory: directory.url)
        #expect(misspelt.status == 65 && misspelt.stderr.contains("did you mean entry?") && misspelt.stderr.contains("title"), "\(misspelt.stderr)")
        try Self.write(#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Quakes</title><id>f</id></feed>"#, "empty.xml", in: directory)
        let empty = try importer(["run", "--store", directory.path("s.sqlite"), "--model", "right.yaml", "--format", "json", "empty.xml"], directory: directory.url)
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(((empty.json as? [String: Any])?["warnings"] as? [String] ?? []).contains { $0.contains("matched no element") }, "\(empty.stdout)")
    }
}
