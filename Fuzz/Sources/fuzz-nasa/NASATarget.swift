// NASAColumnarReader (the NASA/JPL fireball API shape; SampleData/models/fireball.yaml): read with
// the product's buffer, then with a 1–64 byte initial buffer (refills and growth) through reads cut
// to 1–16 bytes, and the two readings compared.
import FuzzSupport
import ImporterKit

private let (mapping, entity) = Fuzz.sampleFeed("fireball.yaml")
private let file = Fuzz.InputFile("nasa")

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    file.write(data)
    let whole = Fuzz.read(path: file.path, mapping: mapping, entity: entity) { source throws(FeedError) in
        try FeedReaders.make(for: mapping, source: source)
    }
    let buffer = Fuzz.choice(data, 1...64)
    let chunk = 1 + buffer % 16
    let small = Fuzz.withReadLimit(chunk) {
        Fuzz.read(path: file.path, mapping: mapping, entity: entity) { source throws(FeedError) in
            NASAColumnarReader(source: source, bufferSize: buffer)
        }
    }
    Fuzz.expectSame(whole, small, "1 MiB buffer vs \(buffer)-byte buffer and reads of at most \(chunk) bytes")
    return 0
}
