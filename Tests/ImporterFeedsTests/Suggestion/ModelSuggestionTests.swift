import ImporterTestSupport
import Foundation
@testable import ImporterFeeds
import ImporterModel
import Testing

/// The parts of `model suggest`: names, types, the key, and whole suggestions read back as models.
@Suite struct ModelSuggestionTests {
    // MARK: Naming

    @Test func namesAreLeavesUnlessTheyCollide() {
        let names = AttributeNaming.names(for: [
            (["properties", "mag"], 1), (["properties", "magType"], 1), (["properties", "title"], 1),
            (["geometry", "coordinates", "0"], 2), (["geometry", "coordinates", "1"], 2),
            (["properties", "code"], 1), (["metadata", "code"], 1),
        ], recordNoun: "feature")
        #expect(names == ["mag", "mag_type", "title", "coordinates_0", "coordinates_1", "properties_code", "metadata_code"])
    }

    @Test func reservedNamesAreRenamed() {
        let names = AttributeNaming.names(for: [
            (["id"], 1), (["properties", "id"], 1), (["end"], 1), (["importer_run"], 1), (["Café (m)"], 1), (["2nd"], 1),
            (["properties", "type"], 1), (["type"], 1), ([String(repeating: "x", count: 80)], 1),
        ], recordNoun: "feature")
        #expect(names[0] == "feature_id")
        #expect(names[1] == "properties_id")
        #expect(names[2] == "end_value")
        #expect(names[3] == "field_importer_run")
        #expect(names[4] == "cafe_m")
        #expect(names[5] == "field_2nd")
        // `type` is a name like any other since importer's own history columns are prefixed.
        #expect(names[6] == "properties_type")
        #expect(names[7] == "type")
        #expect(names[8].utf8.count == SQLIdentifier.Limit.attribute)
        let entity = EntityDescription(name: "E", tableName: "e", attributes: names.map { AttributeDescription(name: $0, type: .text) },
                                       uniqueKey: [names[0]], tombstoneAttributes: [])
        #expect(entity.validate().filter { !$0.contains("must be required") }.isEmpty)
        #expect(AttributeNaming.names(for: [(["id"], 1)], recordNoun: nil) == ["source_id"])
    }

    @Test func entityAndMappingNamesComeFromTheFileName() {
        #expect(AttributeNaming.entityNames(forPath: "/tmp/all_day.geojson") == ("AllDay", "all_day"))
        #expect(AttributeNaming.entityNames(forPath: "2.5_week.csv") == ("Feed25Week", "feed_2_5_week"))
        #expect(AttributeNaming.mappingName(forPath: "data/protocol-numbers.xml") == "protocol-numbers")
        // A dated export is named without its date; records named by their path name the entity.
        #expect(AttributeNaming.entityNames(forPath: "usgs-all-week-20210720T1423Z.csv") == ("UsgsAllWeek", "usgs_all_week"))
        #expect(AttributeNaming.mappingName(forPath: "pegel_2025-12-01.csv") == "pegel")
        #expect(AttributeNaming.entityNames(forPath: "2024-fireballs.json") == ("Feed2024Fireballs", "feed_2024_fireballs"))
        #expect(AttributeNaming.entityNames(forPath: "all_day.geojson", recordNoun: "feature") == ("Feature", "feature"))
    }

    // MARK: Types

    private func inferred(_ values: [SampleScalar], _ words: [String] = ["value"]) -> InferredType {
        var evidence = TypeEvidence()
        for value in values { evidence.observe(value) }
        return evidence.inferred(words: words)
    }

    @Test func epochMillisecondsAreDatetimes() {
        #expect(inferred([.number("1583516578620"), .number("1583517154040")], ["properties", "time"]) == InferredType(type: .datetime, format: "epoch-ms"))
        #expect(inferred([.number("1583516578620")], ["updated"]).format == "epoch-ms")
        // Numbers in range without a hint are still times; an id-like name is not.
        #expect(inferred([.number("1583516578620")], ["generated"]).format == "epoch-ms")
        #expect(inferred([.number("1583516578620")], ["event_id"]).type == .integer)
        // Seconds and microseconds need a name that says time.
        #expect(inferred([.number("1583516578")], ["time"]) == InferredType(type: .datetime, format: "epoch-s"))
        #expect(inferred([.number("1583516578")], ["population"]).type == .integer)
        #expect(inferred([.number("1583516578620123")], ["created_at"]).format == "epoch-us")
        #expect(inferred([.string("1583516578620")], ["time"]).format == "epoch-ms")
    }

    @Test func isoAndOtherDateShapes() {
        #expect(inferred([.string("2020-03-06T17:42:58.620Z"), .string("2020-03-06T17:42:58+02:00")]) == InferredType(type: .datetime, format: "iso8601"))
        #expect(inferred([.string("2020-03-06 17:42:58")]) == InferredType(type: .datetime, format: "%Y-%m-%d %H:%M:%S", zone: "UTC"))
        #expect(inferred([.string("2020-03-06")]).type == .date)
        #expect(inferred([.string("Fri, 06 Mar 2020 17:42:58 +0000")]) == InferredType(type: .datetime, format: "rfc2822"))
        #expect(inferred([.string("2020-03-06T17:42:58.620Z"), .string("yesterday")]).type == .text)
        #expect(inferred([.string("2020-13-06T17:42:58Z")]).type == .text)
    }

    @Test func numbersBooleansAndText() {
        #expect(inferred([.number("4"), .number("5")]).type == .integer)
        #expect(inferred([.number("4"), .number("5.5")]).type == .real)
        #expect(inferred([.string("4.5"), .string(""), .string("-1e3")]) == InferredType(type: .real, emptyIsNull: true))
        #expect(inferred([.string("007"), .string("12")]).type == .text)
        #expect(inferred([.number("12345678901234567890")]).type == .text)
        #expect(inferred([.bool(true), .bool(false), .null]).type == .boolean)
        #expect(inferred([.string("TRUE"), .string("false")]).type == .boolean)
        #expect(inferred([.number("1"), .string("x")]).type == .text)
        #expect(inferred([.null, .null]).type == .text)
    }

    /// Numbers written for people get the format that reads every value; a comma that could be
    /// either is decimal in a `;` export, thousands otherwise, and flagged for a check.
    @Test func numbersWrittenForPeople() {
        let comma = NumberFormat(thousands: nil, decimal: UInt8(ascii: ","))
        let european = NumberFormat(thousands: UInt8(ascii: "."), decimal: UInt8(ascii: ","))
        let english = NumberFormat(thousands: UInt8(ascii: ","), decimal: UInt8(ascii: "."))
        let decimal = inferred([.string("1,5"), .string("12"), .string("")])
        #expect(decimal.type == .real && decimal.numberFormat == comma && decimal.emptyIsNull && !decimal.ambiguousComma)
        #expect(inferred([.string("1.234,5"), .string("7")]).numberFormat == european)
        #expect(inferred([.string("1.234"), .string("12.000,5")]).numberFormat == european)
        let thousands = inferred([.string("1,234"), .string("56,789")])
        #expect(thousands.type == .integer && thousands.numberFormat == english && thousands.ambiguousComma)
        #expect(inferred([.string("1,234"), .string("56,789,012")]) == InferredType(type: .integer, numberFormat: english), "only thousands read both")
        var evidence = TypeEvidence()
        for value in ["5,366", "7"] { evidence.observe(.string(value)) }
        #expect(evidence.inferred(words: ["v"], decimalComma: true).numberFormat == comma)
        #expect(evidence.inferred(words: ["v"], decimalComma: true).type == .real)
        #expect(inferred([.string("1,234.5"), .string("3")]) == InferredType(type: .real, numberFormat: english))
        // Plain numbers need no format; a code with leading zeros or a mix with words stays text.
        #expect(inferred([.string("1.5"), .string("2")]).numberFormat == nil)
        #expect(inferred([.string("001"), .string("1,5")]).type == .text)
        #expect(inferred([.string("1,5"), .string("n/a")]).type == .text)
        #expect(inferred([.string("1,5"), .string("1.5")]).type == .text, "no format reads both")
    }

    // MARK: Key

    private func candidate(_ name: String, _ values: [String?], type: AttributeType = .text) -> KeyChoice.Candidate {
        var byRecord: [Int: String] = [:]
        for (index, value) in values.enumerated() { byRecord[index] = value }
        return KeyChoice.Candidate(words: name.split(separator: "/").map(String.init), type: type,
                                   required: !values.contains(nil), repeated: false, values: byRecord)
    }

    @Test func theKeyIsAnIdentifierThatIsUniqueInEveryFeed() {
        let candidates = [
            candidate("properties/place", ["a", "b", "c", "d"]),
            candidate("properties/code", ["1", "2", "3", "4"]),
            candidate("id", ["x1", "x2", "x1", "x2"]),
            candidate("properties/net", ["us", "us", "ci", "ci"]),
        ]
        // Two snapshots of two records each: `id` repeats across them but is unique in each.
        #expect(KeyChoice.choose(candidates, feeds: [0..<2, 2..<4]) == KeyChoice(fields: [2]))
        // In one feed `id` repeats: `code` (an identifier word) is next.
        #expect(KeyChoice.choose(candidates, feeds: [0..<4]) == KeyChoice(fields: [1]))
    }

    @Test func aPairWhenNothingSingleIsUniqueAndANoteWhenNothingIs() {
        let pair = [candidate("net", ["us", "us", "ci"]), candidate("code", ["1", "2", "1"]), candidate("mag", ["1", "1", "1"], type: .real)]
        #expect(KeyChoice.choose(pair, feeds: [0..<3]) == KeyChoice(fields: [1, 0]))
        let none = [candidate("net", ["us", "us", "us"]), candidate("mag", ["1", "2", "2"], type: .real)]
        let choice = KeyChoice.choose(none, feeds: [0..<3])
        #expect(choice?.fields == [1])
        #expect(choice?.warning?.contains("no field (nor pair of fields) is unique") == true)
    }

    // MARK: Whole suggestions

    static let namedFormatsKnown = ["epoch-ms", "iso8601", "rfc2822"].allSatisfy { DateTimeFormat.problem(with: $0) == nil }

    static func sampleData(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleData/suggest").appendingPathComponent(name).path
    }

    private func suggestion(_ names: [String], format: FeedFormat, limit: Int = 1000) throws -> (ModelSuggestion, Model) {
        let paths = names.map(Self.sampleData)
        let samples = try paths.map { path throws(FeedError) in try ModelSuggester.sample(path: path, format: format, limit: limit) }
        let suggestion = try ModelSuggester.suggest(samples, paths: paths)
        var model = suggestion.model
        var yaml = SuggestionYAML.render(suggestion)
        if !Self.namedFormatsKnown {
            // Until DateTimeFormat reads epoch-ms, iso8601 and rfc2822, compare without them.
            let named = ["epoch-s", "epoch-ms", "epoch-us", "iso8601", "rfc2822"]
            yaml = yaml.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { line in !named.contains { line.hasSuffix("format: \($0)") } }.joined(separator: "\n")
            for index in model.feeds[0].fields.indices where named.contains(model.feeds[0].fields[index].format ?? "") {
                model.feeds[0].fields[index].format = nil
            }
        }
        let parsed = try ModelFile.parse(yaml, name: "suggested.yaml")
        #expect(parsed == model, "\(yaml)")
        #expect(try ModelFile.parse(ModelFile.json(model), name: "suggested.json") == model)
        return (suggestion, suggestion.model)
    }

    @Test func geoJSON() throws {
        let (suggestion, model) = try suggestion(["quakes-day1.geojson", "quakes-day2.geojson"], format: .json)
        let entity = try #require(model.entities.first)
        let feed = try #require(model.feeds.first)
        // Named after the records (`/features`), not the file.
        #expect(entity.name == "Feature" && entity.tableName == "feature")
        #expect(feed.records == "/features")
        #expect(entity.uniqueKey == ["feature_id"])
        #expect(feed.fields.first { $0.attribute == "feature_id" }?.field == "id")
        #expect(entity.tombstoneAttributes == ["feature_id", "title", "place", "code"])
        let time = try #require(feed.fields.first { $0.field == "/properties/time" })
        #expect(time.format == "epoch-ms" && entity.attribute(named: time.attribute)?.type == .datetime)
        #expect(feed.fields.filter { $0.field?.hasPrefix("/geometry/coordinates/") == true }.map(\.attribute) == ["coordinates_0", "coordinates_1", "coordinates_2"])
        #expect(entity.attribute(named: "coordinates_2")?.type == .real)
        // Only the key is required, though every sampled feature has a magnitude.
        #expect(entity.attribute(named: "mag")?.isOptional == true)
        #expect(entity.attributes.filter { !$0.isOptional }.map(\.name) == ["feature_id"])
        #expect(entity.attribute(named: "felt")?.isOptional == true)
        #expect(entity.attribute(named: "tsunami")?.type == .integer)
        #expect(entity.attribute(named: "properties_type")?.type == .text)
        #expect(!feed.fields.contains { $0.field == "type" }, "GeoJSON's own member")
        let yaml = SuggestionYAML.render(suggestion)
        #expect(yaml.contains(#"field: "/properties/time"  # 1583516578620 = 2020-03-06 17:42:58.620 UTC"#), "\(yaml)")
        #expect(yaml.contains(#"field: "/properties/felt"  # 3 (none in 9 of 11 records)"#), "\(yaml)")
    }

    @Test func ndjsonWithAVariableArray() throws {
        let (_, model) = try suggestion(["quakes.ndjson"], format: .ndjson)
        let entity = try #require(model.entities.first)
        let feed = try #require(model.feeds.first)
        #expect(feed.records == nil)
        #expect(entity.uniqueKey == ["source_id"])
        #expect(feed.fields.first { $0.attribute == "source_id" }?.field == "id")
        #expect(entity.attribute(named: "reviewed")?.type == .boolean)
        let tags = try #require(feed.fields.first { $0.field == "tags" })
        #expect(tags.repeated == .all && entity.attribute(named: tags.attribute)?.type == .text)
    }

    @Test func csvWithISOTimes() throws {
        let (_, model) = try suggestion(["quakes.csv"], format: .csv)
        let entity = try #require(model.entities.first)
        let feed = try #require(model.feeds.first)
        #expect(entity.uniqueKey == ["source_id"])
        #expect(feed.fields.first { $0.field == "time" }?.format == "iso8601")
        #expect(entity.attribute(named: "time")?.type == .datetime)
        let nst = try #require(feed.fields.first { $0.field == "nst" })
        #expect(nst.emptyIsNull && entity.attribute(named: "nst")?.type == .integer && entity.attribute(named: "nst")?.isOptional == true)
        #expect(entity.attribute(named: "type")?.type == .text, "a CSV column named type keeps its name")
    }

    @Test func namespacedXMLWithRepeatedElements() throws {
        let (_, model) = try suggestion(["protocols.xml"], format: .xml)
        let entity = try #require(model.entities.first)
        let feed = try #require(model.feeds.first)
        #expect(feed.records == "/r:registry/r:registry/r:record")
        #expect(feed.namespaces == ["r": "http://www.iana.org/assignments"])
        #expect(entity.uniqueKey == ["value"])
        #expect(entity.attribute(named: "value")?.type == .integer)
        #expect(feed.fields.first { $0.attribute == "date" }?.field == "@date")
        #expect(entity.attribute(named: "date")?.type == .date)
        // The repeated <xref type data/> is a list of child records, its pairs kept together.
        #expect(!feed.fields.contains { $0.field?.contains("xref") == true })
        let relationship = try #require(model.relationships.first)
        #expect(relationship.records == "/r:xref" && relationship.key == .attributes(["data"]) && relationship.child == "Xref")
        #expect(feed.children.first?.fields.map(\.field) == ["@type", "@data"])
    }

    @Test func atomCategoriesByLabel() throws {
        let (_, model) = try suggestion(["quakes.atom"], format: .xml)
        let entity = try #require(model.entities.first)
        let feed = try #require(model.feeds.first)
        #expect(feed.records == "/a:feed/a:entry")
        #expect(feed.namespaces == ["a": "http://www.w3.org/2005/Atom", "georss": "http://www.georss.org/georss"])
        #expect(entity.uniqueKey == ["entry_id"])
        #expect(feed.fields.first { $0.attribute == "entry_id" }?.field == "a:id")
        #expect(feed.fields.first { $0.attribute == "magnitude" }?.field == "a:category[@label='Magnitude']/@term")
        #expect(feed.fields.first { $0.attribute == "updated" }?.format == "iso8601")
        #expect(feed.fields.first { $0.attribute == "link_href" }?.field == "a:link/@href")
        #expect(entity.attribute(named: "elev")?.type == .integer)
    }

    @Test func feedsWithoutRecordsAndBrokenFeedsAreErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let empty = try directory.write("empty.geojson", #"{"type":"FeatureCollection","features":[]}"#)
        #expect(throws: FeedError.self) { try ModelSuggester.sample(path: empty, format: .json, limit: 10) }
        let noRecords = try ModelSuggester.sample(path: try directory.write("e.ndjson", "\n"), format: .ndjson, limit: 10)
        #expect(throws: FeedError.self) { try ModelSuggester.suggest([noRecords], paths: ["e.ndjson"]) }
        let broken = try directory.write("b.json", "[{\"a\": 1},\n {\"a\": tru}]")
        do {
            _ = try ModelSuggester.sample(path: broken, format: .json, limit: 10)
            Issue.record("no error")
        } catch {
            #expect(error.location?.line == 2)
        }
        #expect(throws: FeedError.unreadable(path: directory.path("missing.csv"), reason: "No such file or directory")) {
            try ModelSuggester.sample(path: directory.path("missing.csv"), format: .csv, limit: 10)
        }
    }

    /// Every format is read to its end past the sample (for types, in bounded memory): a broken
    /// record there is an error, as it would be for the import.
    @Test func samplingReadsPastTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let lines = (0..<50).map { #"{"id": \#($0), "v": "x"}"# }.joined(separator: "\n")
        let sample = try #require(try ModelSuggester.sample(path: try directory.write("many.ndjson", lines + "\n"), format: .ndjson, limit: 20).first)
        #expect(sample.recordFields.count == 20 && sample.tailRecords == 30)
        let broken = feedError { _ = try ModelSuggester.sample(path: try directory.write("broken.ndjson", lines + "\n{broken"), format: .ndjson, limit: 20) }
        #expect(broken?.location?.line == 51, "\(String(describing: broken))")
        let xml = "<r>\n" + (0..<50).map { "<e><id>\($0)</id></e>\n" }.joined()
        let xmlSample = try #require(try ModelSuggester.sample(path: try directory.write("many.xml", xml + "</r>\n"), format: .xml, limit: 20).first)
        #expect(xmlSample.recordFields.count == 20 && xmlSample.tailRecords == 30)
        let brokenXML = feedError { _ = try ModelSuggester.sample(path: try directory.write("broken.xml", xml + "<broken"), format: .xml, limit: 20) }
        #expect(brokenXML?.location?.line == 52, "\(String(describing: brokenXML))")
    }

    /// A number that turns real after the sample, and a field first met after it, are typed and
    /// mapped from every record, in JSON, CSV and XML alike; only the key is required.
    @Test func typesAndFieldsComeFromTheWholeFeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let json = "[" + (1...1_500).map { index in
            index <= 1_000 ? #"{"id": "q\#(index)", "mag": \#(index)}"# : #"{"id": "q\#(index)", "mag": \#(index).5, "felt": \#(index)}"#
        }.joined(separator: ",\n") + "]"
        let csv = "id,mag\n" + (1...1_500).map { "q\($0),\($0 <= 1_000 ? "\($0)" : "\($0).5")" }.joined(separator: "\n") + "\n"
        let xml = "<quakes>\n" + (1...1_500).map { index in
            index <= 1_000 ? "<quake id=\"q\(index)\"><mag>\(index)</mag></quake>" : "<quake id=\"q\(index)\"><mag>\(index).5</mag><felt>\(index)</felt></quake>"
        }.joined(separator: "\n") + "\n</quakes>\n"
        for (path, format) in [(try directory.write("quakes.json", json), FeedFormat.json), (try directory.write("quakes.csv", csv), .csv),
                               (try directory.write("quakes.xml", xml), .xml)] {
            let sample = try ModelSuggester.sample(path: path, format: format, limit: 1_000)
            let suggestion = try ModelSuggester.suggest([sample], paths: [path])
            let attributes = try #require(suggestion.model.entities.first?.attributes, "\(format)")
            #expect(attributes.first { $0.name == "mag" }?.type == .real, "\(attributes)")
            #expect(format == .csv || attributes.first { $0.name == "felt" }?.type == .integer, "\(attributes)")
            // Only the key (the `id` field, renamed where `id` is reserved) is required.
            #expect(attributes.filter { !$0.isOptional }.count == 1 && suggestion.model.entities[0].uniqueKey.count == 1, "\(attributes)")
            #expect(suggestion.notes.first?.contains("from 1500 record(s)") == true && suggestion.notes.first?.contains("1000 sampled") == true, "\(suggestion.notes)")
        }
    }
}
