// JSONRecordsReader with a `records` pointer (SampleData/models/fireball-json-nested.yaml:
// /data/items), or at the root when the input starts with `[`; read whole, then again through
// reads cut to 1–16 bytes (every refill and unit restart of JSONScanner), and the two readings
// compared. Then a raw reading (no mapper) of fields that index arrays, escape keys and nest in
// one another, with a mix of `repeated` policies, checked for the RawRecord invariants
// (`Fuzz.rawInvariantProblems`) and compared the same way.
import FuzzSupport
import ImporterKit

private let (nested, entity) = Fuzz.sampleFeed("fireball-json-nested.yaml")
private let root = { var feed = nested; feed.records = nil; return feed }()
private let file = Fuzz.InputFile("json")

/// The raw reading's fields: keys, RFC 6901 pointers with array indexes and `~0`/`~1` escapes, and
/// pointers that are prefixes of others (`/a`, `/a/0`, `/a/1/b`).
private let rawFields = [
    "date", "/location/lat", "/a", "/a/0", "/a/1", "/a/1/b", "/a/0/0", "/a~1b/m~0n", "/a~1b",
    "/geometry/coordinates/0", "/geometry/coordinates/1", "/geometry/coordinates", "/tags", "/x/10",
    "/", "/~0", "/b/c/d",
]

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
    let repeated = Fuzz.policies(count: rawFields.count, offset: Fuzz.choice(data, 0...4))
    func readRaw() -> Fuzz.Transcript {
        Fuzz.readRaw(path: file.path, fields: rawFields, repeated: repeated) { source throws(FeedError) in
            try JSONRecordsReader(source: source, records: mapping.records, lines: false)
        }
    }
    let rawWhole = readRaw()
    let rawCut = Fuzz.withReadLimit(chunk, readRaw)
    Fuzz.expectSame(rawWhole, rawCut, "raw fields: whole reads vs reads of at most \(chunk) bytes")
    return 0
}
