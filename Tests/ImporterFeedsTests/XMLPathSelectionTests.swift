import ImporterTestSupport
import Foundation
@testable import ImporterFeeds
@testable import ImporterKit
import Testing

/// An entity of text attributes `k` (the key) and `a`…`e`.
private let itemEntity = EntityDescription(
    name: "Item", tableName: "item", attributes: ["k", "a", "b", "c", "d", "e"].map { AttributeDescription(name: $0, type: .text) },
    uniqueKey: ["k"], tombstoneAttributes: [])

private func itemMapping(_ records: String, namespaces: [String: String] = [:], _ fields: [FieldMapping]) -> FeedMapping {
    FeedMapping(name: "items", entity: "Item", format: .xml, records: records, namespaces: namespaces, fields: fields)
}

private func field(_ attribute: String, _ path: String, _ repeated: RepeatedValues = .reject) -> FieldMapping {
    var field = FieldMapping(attribute: attribute, field: path)
    field.repeated = repeated
    return field
}

/// Reads and maps every record of the XML `text`: the mapped values by attribute, and the rejects.
private func mapXML(_ text: String, _ mapping: FeedMapping) throws -> (values: [[String: Value]], rejects: [Reject]) {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = try directory.write("feed.xml", text)
    let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: mapping)
    var mapper = try RecordMapper(entity: itemEntity, mapping: mapping)
    try mapper.configure(header: try reader.open(requesting: mapper.requestedFields), sourceName: path)
    var batch = mapper.makeBatch(capacity: 16)
    var record = mapper.makeRawRecord()
    var rejects: [Reject] = []
    while try reader.next(into: &record) {
        if let reject = mapper.map(record, into: &batch) { rejects.append(reject) }
    }
    let values = (0..<batch.count).map { index in
        Dictionary(uniqueKeysWithValues: batch.columns.enumerated().map { position, attribute in
            (itemEntity.attributes[attribute].name, batch.publicValue(record: index, position: position))
        })
    }
    return (values, rejects)
}

/// The raw slots of every record (kind and text), read with the given policies.
private func rawXML(_ text: String, records: String, fields: [String], repeated: [RepeatedValues]) throws -> [[String]] {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = try directory.write("feed.xml", text)
    let reader = try XMLRecordsReader(source: try ByteSource(path: path), mapping: itemMapping(records, []))
    _ = try reader.open(requesting: fields)
    var record = RawRecord(slotCount: fields.count, repeated: repeated)
    var rows: [[String]] = []
    while try reader.next(into: &record) {
        rows.append(fields.indices.map { "\(record.slots[$0].kind) \(record.text(of: $0)) ×\(record.slots[$0].occurrences)" })
    }
    return rows
}

/// The problems `ModelFile.parse` finds in `yaml` with the feed readers' checks.
private func modelProblems(_ yaml: String) -> [String] {
    do {
        _ = try ModelFile.parse(yaml, name: "m.yaml", checks: FeedMappingProblems.problems)
        return []
    } catch {
        if case .problems(let found) = error { return found }
        return ["\(error)"]
    }
}

/// The message of the feed error that reading `text` with `records` throws.
private func missMessage(_ text: String, records: String, namespaces: [String: String] = [:]) -> String? {
    let error = feedError { _ = try mapXML(text, itemMapping(records, namespaces: namespaces, [field("k", "@k")])) }
    guard case .shape(_, let message)? = error else { return nil }
    return message
}

@Suite struct XMLPathSelectionTests {
    // MARK: Path syntax

    @Test func parsesEveryStepForm() throws {
        let namespaces = XMLPath.namespaces(["g": "urn:g"], documentDefault: "urn:d")
        func parse(_ text: String) throws -> (elements: [XMLStep], attribute: XMLName?) {
            let parsed = try XMLPath.field(text, namespaces: namespaces)
            return (parsed.elements, parsed.attribute)
        }
        #expect(try parse("a").elements == [XMLStep(name: XMLName(localName: "a"))])
        #expect(try parse("xref[2]").elements == [XMLStep(name: XMLName(localName: "xref"), predicate: .position(2))])
        #expect(try parse("a[12]/b").elements.map(\.predicate) == [.position(12), nil])
        let magnitude = try parse("default:category[@label='Magnitude']/@term")
        #expect(magnitude.elements == [XMLStep(name: XMLName(namespace: "urn:d", localName: "category"),
                                               predicate: .attribute(XMLName(localName: "label"), "Magnitude"))])
        #expect(magnitude.attribute == XMLName(localName: "term"))
        #expect(try parse(#"link[ @rel = "alternate" ]/@href"#).elements[0].predicate == .attribute(XMLName(localName: "rel"), "alternate"))
        // Quotes hold '/', ']' and the other quote; a prefixed attribute in a predicate.
        #expect(try parse(#"a[@g:u='http://x/y]"z']/b"#).elements.map(\.predicate) == [.attribute(XMLName(namespace: "urn:g", localName: "u"), #"http://x/y]"z"#), nil])
        #expect(try parse("a[@k='']").elements[0].predicate == .attribute(XMLName(localName: "k"), ""))
        #expect(try XMLPath.records("/default:feed/default:entry", namespaces: namespaces) == [
            XMLName(namespace: "urn:d", localName: "feed"), XMLName(namespace: "urn:d", localName: "entry")])
        // `default` without a default namespace is no namespace; a declared `default` wins.
        #expect(try XMLPath.field("default:a", namespaces: XMLPath.namespaces([:], documentDefault: nil)).elements[0].name == XMLName(localName: "a"))
        #expect(try XMLPath.field("default:a", namespaces: XMLPath.namespaces(["default": "urn:mine"], documentDefault: "urn:d")).elements[0].name
                == XMLName(namespace: "urn:mine", localName: "a"))
    }

    @Test(arguments: [
        ("a[0]", "positions are whole numbers from 1"),
        ("a[-1]", "not a predicate importer reads"),
        ("a[1.5]", "positions are whole numbers from 1"),
        ("a[last()]", "not a predicate importer reads"),
        ("a[b='x']", "not a predicate importer reads"),
        ("a[@k=x]", "one quoted string"),
        ("a[@k='x' or @k='y']", "one quoted string"),
        ("a[@k='x]", "not closed"),
        ("a[1", "not closed"),
        ("a[1][2]", "one predicate per step"),
        ("a[1]b", "nothing may follow"),
        ("@k[1]", "takes no predicate"),
        ("a/@k/b", "can only be the last step"),
        ("a[@q:k='x']", "prefix 'q' is not declared"),
        ("q:a[1]", "prefix 'q' is not declared"),
    ])
    func refusesWhatItDoesNotRead(path: String, fragment: String) {
        #expect(throws: XMLPathError.self) { _ = try XMLPath.field(path, namespaces: [:]) }
        do {
            _ = try XMLPath.field(path, namespaces: XMLPath.namespaces([:], documentDefault: nil))
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(error.message.hasPrefix("field '\(path)'"), "\(error.message)")
        }
        #expect(throws: XMLPathError.self) { _ = try XMLPath.records("/r/e[1]", namespaces: [:]) }
    }

    // MARK: Choosing among repeated elements

    @Test func positionsCountElementsOfOneNameUnderOneParentWithinOneRecord() throws {
        let text = """
            <r>
              <rec k="1"><x>a</x><y>not x</y><x>b</x><x>c</x><g><y>1</y><y>2</y></g><g><y>3</y></g></rec>
              <rec k="2"><x>d</x></rec>
            </r>
            """
        let mapping = itemMapping("/r/rec", [field("k", "@k"), field("a", "x[2]"), field("b", "x[1]"), field("c", "g[2]/y[1]"),
                                             field("d", "g/y[2]"), field("e", "x[4]")])
        let (values, rejects) = try mapXML(text, mapping)
        #expect(rejects.isEmpty)
        #expect(values.count == 2)
        #expect(values[0] == ["k": .text("1"), "a": .text("b"), "b": .text("a"), "c": .text("3"), "d": .text("2"), "e": .null])
        #expect(values[1]["a"] == .null)
        #expect(values[1]["b"] == .text("d"))
    }

    @Test func attributeValuesChooseAnAtomCategory() throws {
        let text = """
            <feed xmlns="urn:atom" xmlns:g="urn:g">
              <title>not a record</title>
              <entry>
                <id>1</id>
                <category label="Age" term="Past Day"/>
                <category label="Magnitude" term="Magnitude 4.5"/>
                <link rel='alternate' href="h1"/><link rel="self" href="h2"/>
                <g:p g:kind="a b">x</g:p><g:p kind="a b">no namespace</g:p>
              </entry>
            </feed>
            """
        let mapping = itemMapping("/default:feed/default:entry", namespaces: ["g": "urn:g"], [
            field("k", "default:id"), field("a", "default:category[@label='Magnitude']/@term"),
            field("b", #"default:category[@label="Age"]/@term"#), field("c", "default:link[@rel = 'self']/@href"),
            field("d", "g:p[@g:kind='a b']"), field("e", "default:category[@label='None']/@term"),
        ])
        let (values, rejects) = try mapXML(text, mapping)
        #expect(rejects.isEmpty)
        #expect(values == [["k": .text("1"), "a": .text("Magnitude 4.5"), "b": .text("Past Day"), "c": .text("h2"), "d": .text("x"), "e": .null]])
    }

    // MARK: Repeated elements and attributes

    static let repeatedText = """
        <r>
          <rec><k>1</k><v>a</v><v x="1">b</v><v x="2"/></rec>
          <rec><k>2</k><v>c</v></rec>
          <rec><k>3</k></rec>
        </r>
        """

    @Test(arguments: [
        (RepeatedValues.first, ["a", "c"], ["1"]),
        (.last, ["", "c"], ["2"]),
        (.all, [#"["a","b",""]"#, #"["c"]"#], [#"["1","2"]"#]),
        (.join(";"), ["a;b;", "c"], ["1;2"]),
    ])
    func aRepeatedFieldFollowsItsPolicy(policy: RepeatedValues, texts: [String], attributes: [String]) throws {
        let (values, rejects) = try mapXML(Self.repeatedText, itemMapping("/r/rec", [field("k", "k"), field("a", "v", policy), field("b", "v/@x", policy)]))
        #expect(rejects.isEmpty)
        #expect(values.map { $0["a"] } == texts.map { .text($0) } + [.null])
        #expect(values.map { $0["b"] } == attributes.map { .text($0) } + [.null, .null])
    }

    @Test func aRepeatedFieldIsRejectedByDefaultNamingTheFieldAndCount() throws {
        let (values, rejects) = try mapXML(Self.repeatedText, itemMapping("/r/rec", [field("k", "k"), field("a", "v")]))
        #expect(values.map { $0["k"] } == [.text("2"), .text("3")])
        #expect(rejects.count == 1)
        #expect(rejects.first?.attribute == "a")
        #expect(rejects.first?.reason.contains("field 'v' has 3 values") == true, "\(String(describing: rejects.first))")
        let attributes = try mapXML(Self.repeatedText, itemMapping("/r/rec", [field("k", "k"), field("b", "v/@x")])).rejects
        #expect(attributes.map(\.reason).first?.contains("field 'v/@x' has 2 values") == true)
    }

    @Test func anElementWhoseTextIsAFieldWithRepeatedChildren() throws {
        let text = "<r><rec><p>t<q>1</q><q>2</q>u</p><e/><e></e><n/></rec><rec><e/></rec></r>"
        let rows = try rawXML(text, records: "/r/rec", fields: ["p", "p/q", "e", "n", "missing"], repeated: [.all, .all, .join(","), .reject, .reject])
        #expect(rows == [
            ["composite {…} ×1", #"string ["1","2"] ×2"#, "string , ×2", "string  ×1", "absent  ×0"],
            ["absent  ×0", "absent  ×0", "string  ×1", "absent  ×0", "absent  ×0"],
        ])
        // Nil values are values too: `all` keeps them as JSON null, `join` leaves them out.
        let nils = "<r xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><rec><v>a</v><v xsi:nil=\"true\"/><v>b</v></rec></r>"
        #expect(try rawXML(nils, records: "/r/rec", fields: ["v", "v[2]"], repeated: [.all, .reject]) == [[#"string ["a",null,"b"] ×3"#, "null null ×1"]])
        #expect(try rawXML(nils, records: "/r/rec", fields: ["v"], repeated: [.join("+")]) == [["string a+b ×3"]])
    }

    @Test func oneElementCanBeSeveralFields() throws {
        let text = #"<r><rec><xref type="rfc" data="rfc9293"/><xref type="person" data="Postel"/></rec></r>"#
        let fields = ["xref/@data", "xref[1]/@data", "xref[2]/@data", "xref[@type='person']/@data", "xref[@type='rfc']/@type", "xref[3]/@data"]
        let rows = try rawXML(text, records: "/r/rec", fields: fields, repeated: [.all, .reject, .reject, .reject, .reject, .reject])
        #expect(rows == [[#"string ["rfc9293","Postel"] ×2"#, "string rfc9293 ×1", "string Postel ×1", "string Postel ×1", "string rfc ×1", "absent  ×0"]])
    }

    // MARK: A records path that matches nothing

    @Test func aDefaultNamespaceMissNamesTheRootAndThePathThatWouldMatch() {
        let iana = #"<registry xmlns="http://www.iana.org/assignments" id="protocol-numbers"><record><value>6</value></record></registry>"#
        #expect(missMessage(iana, records: "/registry/record") == """
            records '/registry/record' matches no element: the root element is {http://www.iana.org/assignments}registry \
            (default namespace http://www.iana.org/assignments); declare it, e.g. namespaces: {r: "http://www.iana.org/assignments"}, \
            and write records: /r:registry/r:record (or, with the predeclared prefix for the root's default namespace, \
            /default:registry/default:record)
            """)
        // A declared prefix for that namespace is the one suggested.
        #expect(missMessage(iana, records: "registry/record", namespaces: ["iana": "http://www.iana.org/assignments"])?
            .hasSuffix("(default namespace http://www.iana.org/assignments); write records: /iana:registry/iana:record") == true)
        // The document's own prefix; a path in a namespace the document does not use.
        #expect(missMessage(#"<a:feed xmlns:a="urn:atom"><a:entry/></a:feed>"#, records: "/feed/entry")
            == "records '/feed/entry' matches no element: the root element is {urn:atom}feed (prefix a bound to urn:atom); declare it, e.g. namespaces: {a: \"urn:atom\"}, and write records: /a:feed/a:entry")
        #expect(missMessage("<feed><entry/></feed>", records: "/a:feed/a:entry", namespaces: ["a": "urn:atom"])
            == "records '/a:feed/a:entry' matches no element: the root element is feed (no namespace); write records: /feed/entry")
        #expect(missMessage("<rss><channel/></rss>", records: "/feed/entry")
            == "records '/feed/entry' matches no element: the root element is rss (no namespace); a records path starts at the root element, such as /rss/…")
    }

    @Test func aDeeperMissNamesTheDeepestMatchAndItsChildren() {
        #expect(missMessage("<r><a/><b><x/></b><a/><c/><d/><e/><f/></r>", records: "/r/x/y")
            == "records '/r/x/y' matches no element: /r holds no x; its child elements: a, b, c, d, e, …")
        #expect(missMessage("<r><s/></r>", records: "/r/s/t/u") == "records '/r/s/t/u' matches no element: /r/s holds no t (it has no child elements)")
        // The records element holds elements of the record's name in another namespace.
        let iana = #"<registry xmlns="urn:i"><title/><record/><record/></registry>"#
        #expect(missMessage(iana, records: "/i:registry/record", namespaces: ["i": "urn:i"])
            == "records '/i:registry/record' matches no element: /i:registry holds no record; its child elements: {urn:i}title, {urn:i}record; {urn:i}record is in another namespace: write records: /i:registry/i:record")
    }

    /// The real IANA file nests its records one level deeper (`registry/registry/record`).
    @Test func recordsAtAnotherDepthAreNamedNotAnEmptyFeed() throws {
        let nested = """
            <registry xmlns="urn:i" id="protocol-numbers"><title>t</title>
            <registry id="inner"><record k="1"/><record k="2"/></registry></registry>
            """
        let message = missMessage(nested, records: "/i:registry/i:record", namespaces: ["i": "urn:i"]) ?? ""
        #expect(message.contains("{urn:i}record elements are 2 levels below the root (the first at line 2), not 1"), "\(message)")
        let found = try mapXML(nested, itemMapping("/i:registry/i:registry/i:record", namespaces: ["i": "urn:i"], [field("k", "@k")]))
        #expect(found.values.count == 2)
    }

    @Test func anExistingRecordsElementWithoutRecordsIsAnEmptyFeed() throws {
        let empty = #"<feed xmlns="urn:atom"><title>quiet day</title><updated>2026-03-06T18:05:12Z</updated></feed>"#
        #expect(try mapXML(empty, itemMapping("/a:feed/a:entry", namespaces: ["a": "urn:atom"], [field("k", "a:id")])).values.isEmpty)
        #expect(try mapXML("<r/>", itemMapping("/r/rec", [field("k", "k")])).values.isEmpty)
        // The whole document is read first: a malformed one is a syntax error, not a miss.
        guard case .syntax? = feedError({ _ = try mapXML("<r><f></r>", itemMapping("/other/f", [field("k", "k")])) }) else {
            Issue.record("expected a syntax error")
            return
        }
    }

    // MARK: model check

    @Test func modelCheckNamesEveryBadPathWithItsField() throws {
        let yaml = """
            entities:
            - name: Item
              table: item
              key: [k]
              attributes:
              - {name: k, type: text, required: true}
              - {name: a, type: text}
              - {name: b, type: text}
              - {name: c, type: real}
            feeds:
            - name: items
              entity: Item
              format: xml
              records: /q:r/rec
              namespaces: {g: "urn:g", "x y": "urn:bad"}
              fields:
              - attribute: k
                field: "g:k[@default:id='1']"
              - attribute: a
                field: "x:a"
              - attribute: b
                field: "a/@b/c"
              - attribute: c
                field: "c[last()]"
                sign: {field: "d[0]", negative: ["-"], positive: ["+"]}
            """
        let problems = modelProblems(yaml)
        #expect(problems.count == 6, "\(problems.joined(separator: "\n"))")
        #expect(problems.contains { $0.hasPrefix("m.yaml:") && $0.contains("feed items: namespaces: 'x y' is not a namespace prefix") })
        #expect(problems.contains { $0.contains("feed items: records '/q:r/rec': the namespace prefix 'q' is not declared") })
        #expect(problems.contains { $0.hasPrefix("m.yaml:19:5:") && $0.contains("attribute 'a': field 'x:a': the namespace prefix 'x' is not declared") })
        #expect(problems.contains { $0.contains("attribute 'b': field 'a/@b/c': an attribute ('@b') can only be the last step") })
        #expect(problems.contains { $0.contains("attribute 'c': field 'c[last()]': '[last()]' is not a predicate") })
        #expect(problems.contains { $0.contains("attribute 'c': field 'd[0]'") })
        // Valid: `default` needs no declaration; the samples pass.
        #expect(FeedMappingProblems.problems(in: try ModelFile.load(path: sample("models/usgs-earthquakes-atom.yaml"))) == [])
        #expect(FeedMappingProblems.problems(in: try ModelFile.load(path: sample("models/iana-protocol-numbers.yaml"))) == [])
    }
}
