// XMLRecordsReader (libxml2's xmlTextReader behind XMLPrologGuard): the namespaced attributes
// mapping (SampleData/models/fireball-xml-attributes.yaml) when the input has `xmlns`, else the
// elements mapping (fireball-xml-elements.yaml). Read with the product's read size, then with
// 1–32 byte reads; when both readings succeed, their records must agree (positions aside: libxml2
// knows them only up to a chunk).
import FuzzSupport
import ImporterKit

private let (attributes, attributesEntity) = Fuzz.sampleFeed("fireball-xml-attributes.yaml")
private let (elements, elementsEntity) = Fuzz.sampleFeed("fireball-xml-elements.yaml")
private let file = Fuzz.InputFile("xml")
private let xmlns = Array("xmlns".utf8)

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
    return 0
}
