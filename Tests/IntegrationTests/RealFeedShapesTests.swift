import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Real feed shapes imported as a newcomer would, through the built binary: every stored value is
/// checked against an independent reading of the fixture (Foundation's JSON parser).
@Suite struct RealFeedShapesTests {
    static let model = sample("models/usgs-geojson.yaml")

    /// A new, empty store of `backend` (`sqlite` in `directory`, or `postgres` in the tests' cluster).
    static func newStore(_ backend: String, in directory: TemporaryDirectory) throws -> String {
        backend == "postgres" ? try PostgresTestCluster.start().newStoreURL() : directory.path("quakes.sqlite")
    }

    /// The fixture's features as the model should store them, keyed by event id.
    static func expected(_ feed: String) throws -> [String: [String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample(feed)))) as? [String: Any])
        let features = try #require(root["features"] as? [[String: Any]])
        var result: [String: [String: Any]] = [:]
        for feature in features {
            let properties = try #require(feature["properties"] as? [String: Any])
            let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            let id = try #require(feature["id"] as? String)
            let url = try #require(properties["url"] as? String)
            result[id] = [
                "magnitude": properties["mag"] as Any, "place": properties["place"] as Any, "time": try Self.utcText(milliseconds: try #require(properties["time"] as? Int64)),
                "longitude": coordinates[0], "latitude": coordinates[1], "depth": coordinates[2],
                "felt": properties["felt"] ?? NSNull(),
                "sources": ((properties["sources"] as? [String]) ?? []).joined(separator: ","),
                "page_id": String(url.split(separator: "/").last ?? ""),
            ]
        }
        return result
    }

    /// Epoch milliseconds as stored datetime text, by Foundation (`2024-11-26 00:00:00.123`).
    static func utcText(milliseconds: Int64) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = milliseconds % 1000 == 0 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// The entity's records as `export --format json` prints them, keyed by event id.
    static func stored(_ store: String) throws -> [String: [String: Any]] {
        let export = try importer(["export", "--store", store, "--entity", "Quake", "--format", "json"])
        #expect(export.status == 0, "\(export.stderr)")
        let records = try #require(export.json as? [[String: Any]], "\(export.stdout)")
        var result: [String: [String: Any]] = [:]
        for record in records { result[record["event_id"] as? String ?? ""] = record }
        return result
    }

    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil), (is NSNull, is NSNull), (nil, is NSNull), (is NSNull, nil): return true
        case (let x as NSNumber, let y as NSNumber): return x.doubleValue == y.doubleValue
        case (let x as String, let y as String): return x == y
        default: return false
        }
    }

    static func expectStored(_ store: String, equal feed: String, except: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try Self.expected(feed)
        let stored = try Self.stored(store)
        #expect(Set(stored.keys) == Set(expected.keys), sourceLocation: sourceLocation)
        for (id, values) in expected {
            for (attribute, value) in values where !except.contains(attribute) {
                #expect(same(stored[id]?[attribute], value), "\(id).\(attribute): stored \(String(describing: stored[id]?[attribute])), feed \(value)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: ["sqlite", "postgres"]) func geoJSONStoresEveryCoordinateAndSyncCountsAgreeWithTheFeeds(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.newStore(backend, in: directory)
        let first = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", sample("geojson/usgs-day-1.geojson")])
        #expect(first.status == 0, "\(first.stderr)")
        try Self.expectStored(store, equal: "geojson/usgs-day-1.geojson")

        // The counts an independent comparison of the two snapshots gives.
        let before = try Self.expected("geojson/usgs-day-1.geojson"), after = try Self.expected("geojson/usgs-day-2.geojson")
        let inserted = Set(after.keys).subtracting(before.keys).count
        let deleted = Set(before.keys).subtracting(after.keys).count
        let updated = Set(after.keys).intersection(before.keys).filter { id in
            after[id]?.contains { key, value in !Self.same(before[id]?[key], value) } ?? false
        }.count
        let second = try importer(["run", "--store", store, "--model", Self.model, "--sync", "--format", "json", sample("geojson/usgs-day-2.geojson")])
        #expect(second.status == 0, "\(second.stderr)")
        let counts = try #require(((second.json as? [String: Any])?["entities"] as? [String: Any])?["Quake"] as? [String: Any], "\(second.stdout)")
        #expect(counts["inserted"] as? Int == inserted)
        #expect(counts["updated"] as? Int == updated)
        #expect(counts["deleted"] as? Int == deleted)
        try Self.expectStored(store, equal: "geojson/usgs-day-2.geojson")

        // The coordinate revision reached history with its old and new values.
        #expect(second.stdout.contains(#""longitude":{"old":-174.1023,"new":-174.1031}"#), "\(second.stdout)")
        #expect(second.stdout.contains(#""depth":{"old":10,"new":12.5}"#), "\(second.stdout)")
    }

    @Test(arguments: ["sqlite", "postgres"]) func aFieldAbsentFromEveryRecordIsNotSuppliedAndWarned(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.newStore(backend, in: directory)
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("geojson/usgs-day-2.geojson")]).status == 0)
        let run = try importer(["run", "--store", store, "--model", Self.model, "--format", "json", "--exit-code", sample("geojson/usgs-day-3-no-felt.geojson")])
        #expect(run.status == 1, "nothing changed: \(run.stdout) \(run.stderr)")
        let warnings = try #require((run.json as? [String: Any])?["warnings"] as? [String], "\(run.stdout)")
        #expect(warnings.contains { $0.contains("field '/properties/felt' is absent from every record") && $0.contains("attribute felt") }, "\(warnings)")
        #expect(run.stderr.contains("/properties/felt"), "logged too: \(run.stderr)")
        try Self.expectStored(store, equal: "geojson/usgs-day-2.geojson")
        let text = try importer(["run", "--store", store, "--model", Self.model, sample("geojson/usgs-day-3-no-felt.geojson")])
        #expect(text.stdout.contains("absent from every record"), "\(text.stdout)")

        // A field absent from some records only is null there (the upstream drops nulls).
        let check = try importer(["check", "--model", Self.model, "--format", "json", sample("geojson/usgs-day-3-no-felt.geojson")])
        #expect(check.status == 0)
        let feeds = try #require((check.json as? [String: Any])?["feeds"] as? [[String: Any]])
        let fields = try #require(feeds.first?["fields"] as? [[String: Any]])
        let felt = try #require(fields.first { $0["field"] as? String == "/properties/felt" })
        #expect(felt["present"] as? Int == 0)
        #expect((feeds.first?["supplies"] as? [String])?.contains("felt") == false)
        let magnitude = try #require(fields.first { $0["field"] as? String == "/properties/mag" })
        #expect(magnitude["present"] as? Int == 6)
    }

    @Test func checkRunsBeforeTheStoreExistsAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("new.sqlite")
        let check = try importer(["check", "--model", Self.model, sample("geojson/usgs-day-1.geojson")], environment: ["IMPORTER_STORE": store])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("does not exist yet"), "\(check.stdout)")
        #expect(check.stdout.contains("field /geometry/coordinates/0: present in 6"), "\(check.stdout)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test(arguments: ["sqlite", "postgres"]) func aFeedNullingAnAttributeOnMostRecordsIsRefused(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.newStore(backend, in: directory)
        #expect(try importer(["run", "--store", store, "--model", Self.model, sample("geojson/usgs-day-2.geojson")]).status == 0)
        let historyBefore = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let storm = try importer(["run", "--store", store, "--model", Self.model, sample("geojson/usgs-day-4-felt-null.geojson")])
        #expect(storm.status == 65, "\(storm.stdout) \(storm.stderr)")
        #expect(storm.stderr.contains("Quake.felt to null on 3 of the 3 records holding a value"), "\(storm.stderr)")
        #expect(storm.stderr.contains("--max-nulled"))
        try Self.expectStored(store, equal: "geojson/usgs-day-2.geojson")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == historyBefore, "no transaction was recorded")
        let allowed = try importer(["run", "--store", store, "--model", Self.model, "--max-nulled", "100%", "--format", "json",
                                    sample("geojson/usgs-day-4-felt-null.geojson")])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        try Self.expectStored(store, equal: "geojson/usgs-day-4-felt-null.geojson")
    }
}

/// One document, several mappings: every mapping named reads it, in one transaction; a document
/// that several mappings could read, without `--mapping`, is a usage error naming it.
@Suite struct SeveralMappingsTests {
    @Test func recordsAndPeopleOfOneRegistryInOneTransaction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("iana.sqlite")
        let model = sample("models/iana-registry.yaml"), feed = sample("xml/iana-protocol-numbers.xml")
        let ambiguous = try importer(["run", "--store", store, "--model", model, feed])
        #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("several feed mappings could read") && ambiguous.stderr.contains("--mapping"), "\(ambiguous.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))

        let run = try importer(["run", "--store", store, "--model", model, "--mapping", "protocols", "--mapping", "people", "--format", "json", feed])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(run.json as? [String: Any], "\(run.stdout)")
        let entities = try #require(report["entities"] as? [String: [String: Any]])
        #expect(entities["Protocol"]?["inserted"] as? Int == 7)
        #expect(entities["Person"]?["inserted"] as? Int == 2)
        #expect((report["transaction"] as? [String: Any])?["number"] as? Int == 1, "one transaction for both mappings")
        let people = try importer(["export", "--store", store, "--entity", "Person", "--format", "csv"])
        #expect(people.stdout.contains(#""Jon_Postel","Jon Postel","mailto:postel&isi.edu""#), "\(people.stdout)")
        let status = try importer(["query", "--store", store, "--raw", "SELECT count(*) FROM importer_transaction"])
        #expect(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }
}

/// The new options refuse bad values with a usage error (64) that names them, before any store exists.
@Suite struct NewOptionValueTests {
    @Test func badValuesAreUsageErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let half = try importer(["run", "--store", store, "--max-nulled", "half", sample("fireball-2024.json")])
        #expect(half.status == 64)
        #expect(half.stderr.contains("--max-nulled: 'half' is not a count or a percentage"), "\(half.stderr)")
        let stdinTwice = try importer(["run", "--store", store, "--model", sample("models/iana-registry.yaml"),
                                       "--mapping", "protocols", "--mapping", "people", "-"], stdin: Data())
        #expect(stdinTwice.status == 64)
        #expect(stdinTwice.stderr.contains("standard input (-) can be read by one --mapping only"), "\(stdinTwice.stderr)")
        let unknown = try importer(["run", "--store", store, "--model", sample("models/iana-registry.yaml"), "--mapping", "nope",
                                    sample("xml/iana-protocol-numbers.xml")])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown feed mapping 'nope' (the model has: protocols, people)"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
