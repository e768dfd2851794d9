// JSONRecordsReader with `lines: true` (NDJSON; SampleData/models/fireball-ndjson.yaml): read
// whole, then again through reads cut to 1–16 bytes, and the two readings compared.
import FuzzSupport
import ImporterKit

private let (mapping, entity) = Fuzz.sampleFeed("fireball-ndjson.yaml")
private let file = Fuzz.InputFile("ndjson")

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    file.write(data)
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
