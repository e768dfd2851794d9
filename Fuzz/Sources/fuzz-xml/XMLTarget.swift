// XMLRecordsReader (libxml2's xmlTextReader behind XMLPrologGuard): the namespaced attributes
// mapping (SampleData/models/fireball-xml-attributes.yaml) when the input has `xmlns`, else the
// elements mapping (fireball-xml-elements.yaml). Read with the product's read size, then with
// 1–32 byte reads; when both readings succeed, their records must agree (positions aside: libxml2
// knows them only up to a chunk). Then a raw reading (no mapper) of addresses with predicates
// (`xref[2]`, `category[@label='Magnitude']/@term`), nested and repeated elements, under a mix of
// `repeated` policies, checked for the RawRecord invariants and compared the same way; with `xmlns`
// in the input, the records path and the addresses use the `default:` prefix.
import FuzzSupport
import ImporterKit

private let (attributes, attributesEntity) = Fuzz.sampleFeed("fireball-xml-attributes.yaml")
private let (elements, elementsEntity) = Fuzz.sampleFeed("fireball-xml-elements.yaml")
private let file = Fuzz.InputFile("xml")
private let xmlns = Array("xmlns".utf8)

/// The raw reading's addresses: predicates, attributes, prefixes of one another.
private let rawFields = [
    "date", "lat", "xref", "xref[1]", "xref[2]", "xref[2]/@id", "@id", "category/@term",
    "category[@label='Magnitude']/@term", "category[@label=\"Magnitude\"]", "a", "a/b", "a[2]/b", "a/b[2]", "a/@c",
]
private let rawDefaultFields = rawFields.map { field in
    field.split(separator: "/").map { $0.hasPrefix("@") ? String($0) : "default:\($0)" }.joined(separator: "/")
}
private let rawElements = elements
private let rawDefault = { var feed = elements; feed.records = "/default:fireballs/default:fireball"; return feed }()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    file.write(data)
    let namespaced = data.count >= xmlns.count && (0...(data.count - xmlns.count)).contains { i in
        data[i] == xmlns[0] && data[i..<(i + xmlns.count)].elementsEqual(xmlns)
    }
    let (mapping, entity) = namespaced ? (attributes, attributesEntity) : (elements, elementsEntity)
    let whole = Fuzz.read(path: file.path, mapping: mapping, entity: entity, positions: false) { source throws(FeedError) in
        try FeedReaders.make(for: mapping, source: source)
    }
    let size = Fuzz.choice(data, 1...32)
    let small = Fuzz.read(path: file.path, mapping: mapping, entity: entity, positions: false) { source throws(FeedError) in
        try XMLRecordsReader(source: source, mapping: mapping, readSize: size)
    }
    if !whole.failed && !small.failed || Fuzz.printReadings {
        Fuzz.expectSame(whole, small, "64 KiB reads vs \(size)-byte reads")
    }
    let (rawMapping, fields) = namespaced ? (rawDefault, rawDefaultFields) : (rawElements, rawFields)
    let repeated = Fuzz.policies(count: fields.count, offset: Fuzz.choice(data, 0...4))
    func readRaw(_ readSize: Int) -> Fuzz.Transcript {
        Fuzz.readRaw(path: file.path, fields: fields, repeated: repeated, positions: false) { source throws(FeedError) in
            try XMLRecordsReader(source: source, mapping: rawMapping, readSize: readSize)
        }
    }
    let rawWhole = readRaw(1 << 16), rawSmall = readRaw(size)
    if !rawWhole.failed && !rawSmall.failed || Fuzz.printReadings {
        Fuzz.expectSame(rawWhole, rawSmall, "raw fields: 64 KiB reads vs \(size)-byte reads")
    }
    return 0
}
