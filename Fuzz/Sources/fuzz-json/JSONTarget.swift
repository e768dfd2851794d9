// JSONRecordsReader with a `records` pointer (SampleData/models/fireball-json-nested.yaml:
// /data/items), or at the root when the input starts with `[`; read whole, then again through
// reads cut to 1–16 bytes (every refill and unit restart of JSONScanner), and the two readings
// compared.
import FuzzSupport
import ImporterKit

private let (nested, entity) = Fuzz.sampleFeed("fireball-json-nested.yaml")
private let root = { var feed = nested; feed.records = nil; return feed }()
private let file = Fuzz.InputFile("json")

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    file.write(data)
    let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    let mapping = first == UInt8(ascii: "[") ? root : nested
    func read() -> Fuzz.Transcript {
        Fuzz.read(path: file.path, mapping: mapping, entity: entity) { source throws(FeedError) in
            try FeedReaders.make(for: mapping, source: source)
        }
    }
    let whole = read()
    let chunk = Fuzz.choice(data, 1...16)
    let cut = Fuzz.withReadLimit(chunk, read)
    Fuzz.expectSame(whole, cut, "whole reads vs reads of at most \(chunk) bytes")
    return 0
}
