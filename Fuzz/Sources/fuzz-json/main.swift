// JSONRecordsReader with a `records` pointer (SampleData/models/fireball-json-nested.yaml:
// /data/items), or at the root when the input starts with `[`; read whole, then again through
// reads cut to 1–16 bytes (every refill and unit restart of JSONScanner), and the two readings
// compared.
import FuzzSupport
import ImporterKit

let (nested, entity) = Fuzz.sampleFeed("fireball-json-nested.yaml")
var root = nested
root.records = nil
let file = Fuzz.InputFile("json")

Fuzz.run { data in
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
}
