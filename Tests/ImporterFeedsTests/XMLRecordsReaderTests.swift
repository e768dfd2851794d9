import ImporterTestSupport
import CLibXML2
import Foundation
@testable import ImporterFeeds
@testable import ImporterKit
@testable import ImporterStoreSQLite
import Testing

/// `SampleData/xml/fireball-2024-elements.xml`: one `<fireball>` per record, fields as child
/// elements named like the API fields (so the API mapping's field names work as they are).
let fireballXMLElementsFeed = FeedMapping(
    name: "fireball-xml-elements", entity: "Fireball", format: .xml, records: "/fireballs/fireball",
    fields: FireballModel.apiFeed.fields)

/// `SampleData/xml/fireball-2024-attributes.xml`: fields as attributes of `<fireball>`, `vel` as a
/// child element, all elements in a default namespace (matched here through the prefix `f`).
let fireballXMLAttributesFeed: FeedMapping = {
    let fields = FireballModel.apiFeed.fields.map { field -> FieldMapping in
        var field = field
        field.field = field.field == "vel" ? "f:vel" : field.field.map { "@" + $0 }
        if let sign = field.sign?.field { field.sign?.field = "@" + sign }
        return field
    }
    return FeedMapping(name: "fireball-xml-attributes", entity: "Fireball", format: .xml, records: "/f:fireballs/f:fireball",
                       namespaces: ["f": "urn:example:nasa-jpl:fireball"], fields: fields)
}()

/// A raw field as a test sees it.
private struct XMLField: Equatable, CustomStringConvertible {
    var kind: RawKind
    var text: String
    var line: Int32 = 0
    var column: Int32 = 0

    static func string(_ text: String) -> XMLField { XMLField(kind: .string, text: text) }
    static let null = XMLField(kind: .null, text: "null")
    static let composite = XMLField(kind: .composite, text: "{…}")

    var description: String { "\(kind)(\(text))@\(line):\(column)" }
    /// Without the position.
    var value: XMLField { XMLField(kind: kind, text: text) }
}

private struct XMLRow {
    var index: Int
    var line: Int
    var column: Int
    var fields: [XMLField?]
    var values: [XMLField?] { fields.map { $0?.value } }
}

/// Reads every record of the XML feed at `path`.
private func readXMLFile(_ path: String, mapping: FeedMapping, fields: [String], readSize: Int = 1 << 16) throws -> (FeedHeader, [XMLRow]) {
    let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: mapping, readSize: readSize)
    let header = try reader.open(requesting: fields)
    var record = RawRecord(slotCount: fields.count)
    var rows: [XMLRow] = []
    while try reader.next(into: &record) {
        rows.append(XMLRow(index: record.index, line: record.line, column: record.column, fields: fields.indices.map { slot in
            let s = record.slots[slot]
            return s.kind == .absent ? nil : XMLField(kind: s.kind, text: record.text(of: slot), line: s.line, column: s.column)
        }))
    }
    #expect(try reader.next(into: &record) == false)
    return (header, rows)
}

private func readXML(_ bytes: [UInt8], mapping: FeedMapping, fields: [String], readSize: Int = 1 << 16) throws -> (FeedHeader, [XMLRow]) {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("feed.xml")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return try readXMLFile(path, mapping: mapping, fields: fields, readSize: readSize)
}

private func readXML(_ text: String, mapping: FeedMapping, fields: [String], readSize: Int = 1 << 16) throws -> (FeedHeader, [XMLRow]) {
    try readXML(Array(text.utf8), mapping: mapping, fields: fields, readSize: readSize)
}

private func xmlMapping(_ records: String?, namespaces: [String: String] = [:]) -> FeedMapping {
    FeedMapping(name: "test", entity: "Fireball", format: .xml, records: records, namespaces: namespaces, fields: [])
}

/// Imports `path` with `mapping` (views not replayed) into the store at `storePath`.
private func importXML(_ path: String, mapping: FeedMapping, into storePath: String) throws -> ImportResult {
    let store = try Store(path: storePath)
    var options = ImportOptions(author: "test", context: "test")
    options.replayViews = false
    let session = ImportSession(store: store, model: Model(entities: [FireballModel.entity], feeds: [mapping]), options: options)
    return try session.run([FeedInput(path: path, mapping: mapping)])
}

/// The change rows of transaction 1, as comparable text (record ids left out).
private func changeValues(_ storePath: String) throws -> [String] {
    let changes = try Store(path: storePath).read { try $0.changes(in: 1) }
    return changes.map { change in
        func pairs(_ values: [(String, Value)]) -> String { values.map { "\($0.0)=\($0.1)" }.joined(separator: ",") }
        return "\(change.entity) \(change.type) key[\(pairs(change.key))] values[\(pairs(change.values))] changed\(change.changed) tombstone[\(pairs(change.tombstone))]"
    }.sorted()
}

/// Every byte of the store's files, as text with invalid UTF-8 repaired (to search for a leak).
private func storeBytes(_ storePath: String) -> String {
    [storePath, storePath + "-wal", storePath + "-journal"].compactMap { FileManager.default.contents(atPath: $0) }
        .map { String(decoding: $0, as: UTF8.self) }.joined()
}

@Suite struct XMLRecordsReaderTests {
    static let apiFields = FireballModel.apiFeed.fields.compactMap(\.field) // date, energy, impact-e, lat, lon, alt, vel, vx, vy, vz

    // MARK: The samples

    @Test(arguments: [
        ("xml/fireball-2024-elements.xml", fireballXMLElementsFeed),
        ("xml/fireball-2024-attributes.xml", fireballXMLAttributesFeed),
    ])
    func importsTheSameRowsAndHistoryAsTheAPIFeed(file: String, mapping: FeedMapping) throws {
        #expect(Model(entities: [FireballModel.entity], feeds: [mapping]).validate() == [])
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let json = directory.path("json.sqlite")
        let xml = directory.path("xml.sqlite")
        let jsonResult = try importXML(sample("fireball-2024.json"), mapping: FireballModel.apiFeed, into: json)
        let xmlResult = try importXML(sample(file), mapping: mapping, into: xml)
        #expect(xmlResult.rejects.isEmpty)
        #expect(xmlResult.totals.inserted == 10)
        #expect(xmlResult.totals.inserted == jsonResult.totals.inserted)
        let rows = try fireballRows(xml).map { $0.filter { $0.key != "id" } }
        #expect(rows.count == 10)
        #expect(rows == (try fireballRows(json).map { $0.filter { $0.key != "id" } }))
        #expect(try changeValues(xml) == (try changeValues(json)))
        #expect(try changeValues(xml).count == 10)
        // Spot checks: the character reference and the CDATA section, signs from the direction fields.
        let first = try #require(rows.first { $0["date"] == .text("2024-09-04 16:39:40") })
        #expect(first["velocity"] == .real(12.8))
        #expect(first["longitude"] == .real(122.9))
        let second = try #require(rows.first { $0["date"] == .text("2024-07-21 08:12:05") })
        #expect(second["velocity"] == .real(18.3))
        #expect(second["latitude"] == .real(-32.5))
        #expect(second["longitude"] == .real(-76.1))
    }

    @Test func readsTheElementsSampleWithPositions() throws {
        let fields = ["date", "lat", "lat-dir", "alt", "vel", "vx"]
        let (header, rows) = try readXMLFile(sample("xml/fireball-2024-elements.xml"), mapping: fireballXMLElementsFeed, fields: fields)
        #expect(header.supplied == Array(repeating: true, count: fields.count))
        #expect(rows.count == 10)
        #expect(rows.map(\.index) == Array(0..<10))
        #expect(rows[0].line == 5)
        #expect(rows[0].column == 3)
        #expect(rows[0].fields == [
            XMLField(kind: .string, text: "2024-09-04 16:39:40", line: 6, column: 5),
            XMLField(kind: .string, text: "18.0", line: 9, column: 5),
            XMLField(kind: .string, text: "N", line: 10, column: 5),
            XMLField(kind: .string, text: "26.0", line: 13, column: 5),
            XMLField(kind: .string, text: "+12.8", line: 14, column: 5),
            nil,
        ])
        // Nulls of the JSON are absent elements.
        #expect(rows[2].values == [.string("2024-05-18 22:46:48"), .string("41.9"), .string("N"), nil, nil, nil])
        #expect(rows[3].values == [.string("2024-03-02 11:05:20"), nil, nil, .string("45.0"), .string("21.9"), nil])
        #expect(rows[1].line == 16)
        // The factory the import uses makes this reader for `xml`.
        #expect(try FeedReaders.make(for: fireballXMLElementsFeed, source: try ByteSource(path: sample("xml/fireball-2024-elements.xml"))) is XMLRecordsReader)
    }

    @Test func readsTheAttributesSample() throws {
        let fields = ["@date", "@lat", "@lon-dir", "f:vel", "vel", "@vx"]
        let (_, rows) = try readXMLFile(sample("xml/fireball-2024-attributes.xml"), mapping: fireballXMLAttributesFeed, fields: fields)
        #expect(rows.count == 10)
        #expect(rows[0].line == 7)
        #expect(rows[0].column == 3)
        // Attributes are where their element is; <vel> follows '>' on the same line: column unknown.
        #expect(rows[0].fields == [
            XMLField(kind: .string, text: "2024-09-04 16:39:40", line: 7, column: 3),
            XMLField(kind: .string, text: "18.0", line: 7, column: 3),
            XMLField(kind: .string, text: "E", line: 7, column: 3),
            XMLField(kind: .string, text: "+12.8", line: 7, column: 0),
            nil, nil,
        ])
        #expect(rows[1].values[3] == .string("18.3")) // CDATA
        #expect(rows[4].values == [.string("2023-12-13 19:31:02"), .string("4.1"), .string("E"), nil, nil, nil]) // &#69;
        // `vel` without a prefix means no namespace: the sample's <vel> is in the default namespace.
        #expect(rows.allSatisfy { $0.fields[4] == nil })
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func tinyReadsGiveTheSameRecords(readSize: Int) throws {
        for (file, mapping, fields) in [
            ("xml/fireball-2024-elements.xml", fireballXMLElementsFeed, Self.apiFields),
            ("xml/fireball-2024-attributes.xml", fireballXMLAttributesFeed, fireballXMLAttributesFeed.fields.compactMap(\.field)),
        ] {
            let whole = try readXMLFile(sample(file), mapping: mapping, fields: fields).1
            let tiny = try readXMLFile(sample(file), mapping: mapping, fields: fields, readSize: readSize).1
            #expect(tiny.map(\.fields) == whole.map(\.fields), "\(file) read \(readSize) bytes at a time")
            #expect(tiny.map(\.line) == whole.map(\.line))
        }
    }

    // MARK: Security

    @Test func parserOptionsForbidEntitiesDTDsAndTheNetwork() {
        let options = UInt32(bitPattern: XMLRecordsReader.parserOptions)
        #expect(options & XML_PARSE_NONET.rawValue != 0)
        for forbidden in [XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_DTDVALID, XML_PARSE_HUGE, XML_PARSE_XINCLUDE, XML_PARSE_RECOVER] {
            #expect(options & forbidden.rawValue == 0, "option \(forbidden.rawValue)")
        }
    }

    @Test(arguments: ["billion-laughs.xml", "xxe-local-file.xml", "external-dtd.xml"])
    func refusesTheMaliciousSamples(file: String) throws {
        let path = sample("xml/malicious/" + file)
        let secret = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        for readSize in [1 << 16, 1, 5] {
            let error = feedError { _ = try readXMLFile(path, mapping: fireballXMLElementsFeed, fields: Self.apiFields, readSize: readSize) }
            guard case .shape(let location, let message)? = error else {
                Issue.record("\(file): expected the DTD refusal, got \(String(describing: error))")
                continue
            }
            #expect(message == XMLRecordsReader.dtdRefusal)
            #expect(location.line == 4 && location.column == 1, "the <!DOCTYPE of \(file)")
            #expect(error?.description == "\(path):4:1: \(XMLRecordsReader.dtdRefusal)")
            if !secret.isEmpty { #expect(!(error?.description.contains(secret) ?? true)) }
        }
        // Through an import: it fails, the store holds no row, and the secret is nowhere in it.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        do {
            _ = try importXML(path, mapping: fireballXMLElementsFeed, into: store)
            Issue.record("\(file) was imported")
        } catch {
            #expect("\(error)" == "\(path):4:1: \(XMLRecordsReader.dtdRefusal)")
            if !secret.isEmpty { #expect(!"\(error)".contains(secret)) }
        }
        // The import was rolled back: the store it created holds no entity table and no transaction.
        let connection = try SQLiteConnection(path: store, create: false)
        #expect(try connection.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fireball'") == 0)
        #expect(try connection.integer("SELECT count(*) FROM importer_transaction") == 0)
        if !secret.isEmpty { #expect(!storeBytes(store).contains(secret)) }
    }

    @Test func anExternalEntityNeverReadsItsFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let token = "SECRET-\(UUID().uuidString)"
        let secretPath = try directory.write("secret.txt", token)
        let fields = ["date", "lat", "lat-dir", "@id"]
        for declaration in [
            "<!DOCTYPE fireballs [ <!ENTITY x SYSTEM \"file://\(secretPath)\"> ]>",
            "<!DOCTYPE fireballs [ <!ENTITY % p SYSTEM \"file://\(secretPath)\"> %p; ]>",
            "<!DOCTYPE fireballs SYSTEM \"file://\(secretPath)\">",
        ] {
            let text = "<?xml version=\"1.0\"?>\n\(declaration)\n<fireballs><fireball id=\"&x;\"><date>2024-01-01 00:00:00</date><lat>1</lat><lat-dir>&x;</lat-dir></fireball></fireballs>\n"
            let feed = try directory.write("xxe.xml", text)
            let error = feedError { _ = try readXMLFile(feed, mapping: fireballXMLElementsFeed, fields: fields) }
            #expect(error == .shape(SourceLocation(source: feed, line: 2, column: 1), XMLRecordsReader.dtdRefusal))
            #expect(!(error?.description.contains(token) ?? true))
            let store = directory.path("s-\(UUID().uuidString).sqlite")
            #expect(throws: ImportError.self) { _ = try importXML(feed, mapping: fireballXMLElementsFeed, into: store) }
            #expect(!storeBytes(store).contains(token))
        }
    }

    @Test func behindTheGuardLibxml2NeitherExpandsNorLoads() throws {
        // Without the prolog guard, libxml2 parses the DTDs: the DOCTYPE node is refused, and with
        // its options nothing was expanded or read on the way.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let token = "SECRET-\(UUID().uuidString)"
        let secretPath = try directory.write("secret.txt", token)
        let xxe = try directory.write("xxe.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE r [ <!ENTITY x SYSTEM \"file://\(secretPath)\"> ]>\n<r><f><v>&x;</v></f></r>\n")
        let paths = ["billion-laughs.xml", "xxe-local-file.xml", "external-dtd.xml"].map { sample("xml/malicious/" + $0) } + [xxe]
        for path in paths {
            let error = feedError {
                let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: fireballXMLElementsFeed, readSize: 1 << 16,
                                                  maximumRecordSize: 1 << 20, guardingProlog: false)
                _ = try reader.open(requesting: Self.apiFields + ["v"])
                var record = RawRecord(slotCount: Self.apiFields.count + 1)
                while try reader.next(into: &record) {}
            }
            #expect(!(error?.description.contains(token) ?? true))
            if case .shape(_, let message)? = error {
                #expect(message == XMLRecordsReader.dtdRefusal)
            } else {
                // libxml2's own amplification check may stop the billion laughs first.
                #expect(path.hasSuffix("billion-laughs.xml"), "\(String(describing: error))")
            }
        }
    }

    @Test func refusesDTDsInEveryEncodingItAccepts() throws {
        let fields = ["date"]
        let doctype = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!DOCTYPE r [ <!ENTITY x \"y\"> ]>\n<r/>\n"
        var utf16 = [UInt8(0xFF), 0xFE]
        for unit in doctype.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        for readSize in [1 << 16, 1, 3] {
            let error = feedError { _ = try readXML(utf16, mapping: xmlMapping("/r/f"), fields: fields, readSize: readSize) }
            guard case .shape(let location, let message)? = error else {
                Issue.record("expected a refusal, got \(String(describing: error))")
                continue
            }
            #expect(message == XMLRecordsReader.dtdRefusal)
            #expect(location.line == 2)
        }
        // A BOM, comments and processing instructions before the DOCTYPE do not hide it.
        let hidden = "\u{FEFF}<?xml version='1.0'?><!-- <!DOCTYPE in a comment --><?pi <!DOCTYPE ?>\n  <!DOCTYPE r SYSTEM \"http://attacker.example/x.dtd\"><r/>"
        let error = feedError { _ = try readXML(hidden, mapping: xmlMapping("/r/f"), fields: fields) }
        guard case .shape(let location, let message)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(message == XMLRecordsReader.dtdRefusal)
        #expect(location.line == 2 && location.column == 3)
    }

    @Test func refusesEncodingsThatCouldHideADoctype() throws {
        for (bytes, name) in [
            (Array("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n+ADw-!DOCTYPE r+AD4-<r/>".utf8), "UTF-7"),
            (Array("<?xml version=\"1.0\" encoding=\"IBM037\"?><r/>".utf8), "IBM037"),
            (Array("\n <?xml version='1.0' encoding = 'UTF-7'?><r/>".utf8), "UTF-7"), // misplaced: still checked
            ([0x4C, 0x6F, 0xA7, 0x94, 0x93, 0x40], "EBCDIC"),
            ([0x00, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x72], "UCS-4"),
        ] as [([UInt8], String)] {
            let error = feedError { _ = try readXML(bytes, mapping: xmlMapping("/r"), fields: []) }
            guard case .shape(_, let message)? = error else {
                Issue.record("\(name): expected a refusal, got \(String(describing: error))")
                continue
            }
            #expect(message.hasPrefix("the encoding \(name) is not supported"), "\(message)")
        }
        // Allowed: UTF-8 with a BOM, ISO-8859-1 (decoded to UTF-8), UTF-16 with a BOM; long PIs.
        let mapping = xmlMapping("/r/v")
        let stylesheet = "<?xml-stylesheet href=\"\(String(repeating: "a", count: 2000))\"?>\n<r><v a=\"1\"/></r>"
        #expect(try readXML(stylesheet, mapping: mapping, fields: ["@a"]).1.map(\.values) == [[.string("1")]])
        #expect(try readXML([0xEF, 0xBB, 0xBF] + Array("<r><v a=\"é\"/></r>".utf8), mapping: mapping, fields: ["@a"]).1.map(\.values) == [[.string("é")]])
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r><v a=\"".utf8) + [0xE9] + Array("\">caf".utf8) + [0xE9] + Array("</v></r>".utf8)
        #expect(try readXML(latin1, mapping: xmlMapping("/r"), fields: ["v/@a", "v"]).1.map(\.values) == [[.string("é"), .string("café")]])
        var utf16: [UInt8] = [0xFE, 0xFF]
        for unit in "<?xml version=\"1.0\" encoding=\"UTF-16\"?><r><v a=\"ü\"/></r>".utf16 { utf16 += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        #expect(try readXML(utf16, mapping: mapping, fields: ["@a"]).1.map(\.values) == [[.string("ü")]])
    }

    // MARK: Malformed XML

    @Test func malformedXMLNamesLineAndColumn() throws {
        let fields = ["date"]
        let mapping = xmlMapping("/fireballs/fireball")
        let cases: [(text: [UInt8], line: Int, column: Int, expected: String, found: String)] = [
            (Array("<fireballs>\n  <fireball>\n    <date>x</date>\n  </fireball>\n  <fireball>\n</fireballs>\n".utf8),
             6, 13, "the end tag of the open element", "opening and ending tag mismatch: fireball line 5 and fireballs"),
            (Array("<fireballs>\n  <fireball>\n    <date>ab".utf8) + [0xFF] + Array("</date>\n  </fireball>\n</fireballs>\n".utf8),
             3, 13, "text in the document's encoding (UTF-8 unless declared)", "input is not proper UTF-8, indicate encoding !; Bytes: 0xFF 0x3C 0x2F 0x64"),
            (Array("<fireballs>\n  <fireball><date>x</date></fireball>\n</fireballs>\n  garbage\n".utf8),
             4, 3, "the end of the document after the root element", "extra content at the end of the document"),
            (Array("<fireballs>\n  <fireball><date>x</date></fireball>\n".utf8),
             2, 38, "the end tag of <fireballs>", "the end of the input (truncated?)"),
            (Array("<fireballs>\n  <f:fireball/>\n</fireballs>\n".utf8),
             2, 14, "namespace prefixes declared with xmlns", "namespace prefix f on fireball is not defined"),
            (Array("<fireballs>\n  <fireball><date>&nbsp;</date></fireball>\n</fireballs>\n".utf8),
             2, 25, "a character reference or a predefined entity (&lt; &gt; &amp; &apos; &quot;)", "entity 'nbsp' not defined"),
            (Array("<?xml version=\"1.0\"?>\n".utf8), 2, 1, "a root element", "the end of the input"),
            ([], 1, 1, "a root element", "the end of the input"),
        ]
        for item in cases {
            for readSize in [1 << 16, 1] {
                let error = feedError { _ = try readXML(item.text, mapping: mapping, fields: fields, readSize: readSize) }
                guard case .syntax(let location, let expected, let found)? = error else {
                    Issue.record("expected a syntax error, got \(String(describing: error))")
                    continue
                }
                #expect(location.line == item.line && location.column == item.column, "\(found)")
                #expect(location.recordIndex == nil)
                // Fed a byte at a time, libxml2 can word an encoding error differently (same place).
                if readSize > 1 || item.line != 3 {
                    #expect(expected == item.expected)
                    #expect(found == item.found)
                }
                #expect(error?.description == "\(location.source):\(item.line):\(item.column): expected \(expected), found \(found)")
            }
        }
    }

    @Test func anErrorInsideARecordNamesItsLine() throws {
        let text = "<r>\n  <f><v>1</v></f>\n  <f><v>2</v></f>\n  <f><v>3</x></f>\n</r>\n"
        let error = feedError { _ = try readXML(text, mapping: xmlMapping("/r/f"), fields: ["v"]) }
        #expect(error?.location?.line == 4)
        #expect(error?.location?.column == 14)
        #expect(error?.description.contains("opening and ending tag mismatch: v line 4 and x") == true)
    }

    // MARK: Mapping

    @Test func mapsNamespacesCDATAReferencesAttributesAndNestedPaths() throws {
        let text = """
            <?xml version="1.0"?>
            <feed xmlns="urn:a" xmlns:g="urn:geo" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
              <other><entry id="skipped"><name>not at the path</name></entry></other>
              <entry id="1" g:src="x&#x41;" xml:lang="en">
                <name><![CDATA[a <b> & c]]> tail &amp; &#x263A; &lt;</name>
                <g:location g:lat="18.0" lat="no namespace"><g:lon>122.9</g:lon><g:alt> 26 </g:alt></g:location>
                <empty/>
                <empty2></empty2>
                <nil xsi:nil="true">ignored</nil>
                <composite>text<x>1</x></composite>
                <comment>a<!-- c -->b<?pi x?>c</comment>
                <twice>1</twice><twice>2</twice>
              </entry>
              <entry id="2"/>
              <a:entry xmlns:a="urn:a" id="3"><name>prefixed in the document</name></a:entry>
              <entry xmlns="" id="4"><name>no namespace: not a record</name></entry>
              <entry id="5"><name>last</name></entry>
            </feed>
            """
        let mapping = xmlMapping("/n:feed/n:entry", namespaces: ["n": "urn:a", "geo": "urn:geo"])
        let fields = ["@id", "@geo:src", "n:name", "geo:location/@geo:lat", "geo:location/@lat", "geo:location/geo:lon",
                      "geo:location/geo:alt", "n:empty", "n:empty2", "n:nil", "n:composite", "n:comment", "n:twice", "n:missing", "name",
                      "geo:location", "@xml:lang"]
        let (header, rows) = try readXML(text, mapping: mapping, fields: fields)
        #expect(header.supplied == Array(repeating: true, count: fields.count))
        #expect(rows.map { $0.values[0] } == [.string("1"), .string("2"), .string("3"), .string("5")])
        #expect(rows[0].values == [
            .string("1"), .string("xA"), .string("a <b> & c tail & ☺ <"), .string("18.0"), .string("no namespace"), .string("122.9"),
            .string(" 26 "), .string(""), .string(""), .null, .composite, .string("abc"), .string("1"), nil, nil, .composite,
            .string("en"),
        ])
        #expect(rows[1].values == [.string("2")] + Array(repeating: nil, count: fields.count - 1))
        #expect(rows[2].values[2] == .string("prefixed in the document"))
        #expect(rows.map(\.index) == [0, 1, 2, 3])
        #expect(rows.map(\.line) == [4, 14, 15, 17])
        #expect(rows[0].fields[2]?.line == 5)
        #expect(rows[0].fields[2]?.column == 5)
    }

    @Test func recordsAtTheRootAndPathsThatMatchNothing() throws {
        #expect(try readXML("<r a=\"1\"><v>x</v></r>", mapping: xmlMapping("/r"), fields: ["@a", "v"]).1.map(\.values) == [[.string("1"), .string("x")]])
        // The records' parent exists and holds none: an empty feed. No root match: an input error.
        #expect(try readXML("<r><f/></r>", mapping: xmlMapping("/r/g"), fields: ["v"]).1.isEmpty)
        guard case .shape(let location, let message)? = feedError({ _ = try readXML("<r><f/></r>", mapping: xmlMapping("/other/f"), fields: ["v"]) }) else {
            Issue.record("expected a shape error")
            return
        }
        #expect(location.line == 1)
        #expect(message.contains("records '/other/f' matches no element: the root element is r (no namespace)"), "\(message)")
        // Matching nothing still reads the whole document: it must be well-formed.
        #expect(feedError { _ = try readXML("<r><f></r>", mapping: xmlMapping("/other/f"), fields: ["v"]) }?.location?.line == 1)
    }

    @Test func rejectsBadPathsAndAddresses() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("f.xml", "<r/>")
        for (records, namespaces, fragment) in [
            (nil, [:], "needs 'records'"),
            ("", [:], "needs 'records'"),
            ("//fireball", [:], "descendant paths"),
            ("/f:fireballs/f:fireball", [:], "prefix 'f' is not declared"),
            ("/fireballs/@date", [:], "not attributes"),
            ("/fireballs//fireball", [:], "not an XML name"),
        ] as [(String?, [String: String], String)] {
            let error = feedError { _ = try XMLRecordsReader(source: try ByteSource(path: path), mapping: xmlMapping(records, namespaces: namespaces)) }
            guard case .shape(_, let message)? = error else {
                Issue.record("\(String(describing: records)): expected a shape error, got \(String(describing: error))")
                continue
            }
            #expect(message.contains(fragment), "\(message)")
        }
        for (field, fragment) in [("/date", "relative to the record"), ("@a/b", "last step"), ("x:date", "prefix 'x'"), ("a b", "not an XML name"), ("", "not an XML name")] {
            let error = feedError {
                let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: xmlMapping("/r"))
                _ = try reader.open(requesting: [field])
            }
            guard case .shape(_, let message)? = error else {
                Issue.record("\(field): expected a shape error, got \(String(describing: error))")
                continue
            }
            #expect(message.contains(fragment), "\(message)")
        }
    }

    @Test func aRecordLargerThanTheLimitFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("f.xml", "<r><f><v>\(String(repeating: "x", count: 5000))</v></f></r>")
        let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: xmlMapping("/r/f"), maximumRecordSize: 1000)
        _ = try reader.open(requesting: ["v"])
        var record = RawRecord(slotCount: 1)
        #expect(throws: FeedError.recordTooLarge(SourceLocation(source: path, line: 1, column: 0, recordIndex: 0), limit: 1000)) {
            _ = try reader.next(into: &record)
        }
    }

    // MARK: Streaming

    /// 200,000 records, one per line after the two first lines.
    private static func bigFeed(records: Int) -> [UInt8] {
        var bytes = Array("<?xml version=\"1.0\"?>\n<fireballs>\n".utf8)
        bytes.reserveCapacity(records * 80)
        for index in 0..<records {
            bytes += Array("  <fireball n=\"\(index)\"><date>2024-01-01 00:00:00</date><energy>\(index).5</energy></fireball>\n".utf8)
        }
        bytes += Array("</fireballs>\n".utf8)
        return bytes
    }

    private static func countRecords(_ path: String, readSize: Int = 1 << 16) throws -> (count: Int, last: XMLRow?, total: Int?) {
        let source = try ByteSource(path: path)
        let reader = try XMLRecordsReader(source: source, mapping: xmlMapping("/fireballs/fireball"), readSize: readSize)
        _ = try reader.open(requesting: ["@n", "energy"])
        var record = RawRecord(slotCount: 2)
        var count = 0
        var last: XMLRow?
        while try reader.next(into: &record) {
            #expect(record.text(of: 0) == String(count))
            count += 1
            last = XMLRow(index: record.index, line: record.line, column: record.column, fields: [
                XMLField(kind: record.slots[0].kind, text: record.text(of: 0)), XMLField(kind: record.slots[1].kind, text: record.text(of: 1)),
            ])
        }
        #expect(reader.progress.read == source.bytesRead)
        return (count, last, reader.progress.total)
    }

    @Test func streamsABigFileFromAFileAndAPipe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let records = 200_000
        let path = directory.path("big.xml")
        let bytes = Self.bigFeed(records: records)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let fromFile = try Self.countRecords(path, readSize: 4096)
        #expect(fromFile.count == records)
        #expect(fromFile.total == bytes.count)
        // Past line 65,535 lines stay exact (XML_PARSE_BIG_LINES, the white space before each record).
        #expect(fromFile.last?.index == records - 1)
        #expect(fromFile.last?.line == records + 2)
        #expect(fromFile.last?.column == 3)
        #expect(fromFile.last?.fields[1]?.text == "\(records - 1).5")

        // The same bytes through a named pipe: no size, read as they come.
        let fifo = directory.path("feed.pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$0\" > \"$1\"", path, fifo]
        try writer.run()
        let fromPipe = try Self.countRecords(fifo)
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(fromPipe.count == records)
        #expect(fromPipe.total == nil)
        #expect(fromPipe.last?.line == records + 2)
    }
}
