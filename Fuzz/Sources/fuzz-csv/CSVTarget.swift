// CSVRecordsReader (SampleData/models/cneos-csv.yaml): read with the product's chunk size, then
// with 1–32 byte chunks (row cuts, byte order mark and CRLF across chunks), and the two readings
// compared.
import FuzzSupport
import ImporterKit

private let (mapping, entity) = Fuzz.sampleFeed("cneos-csv.yaml")
private let file = Fuzz.InputFile("csv")

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    file.write(data)
    let whole = Fuzz.read(path: file.path, mapping: mapping, entity: entity) { source throws(FeedError) in
        try FeedReaders.make(for: mapping, source: source)
    }
    let chunk = Fuzz.choice(data, 1...32)
    let small = Fuzz.read(path: file.path, mapping: mapping, entity: entity) { source throws(FeedError) in
        try CSVRecordsReader(source: source, mapping: mapping, bufferSize: chunk)
    }
    Fuzz.expectSame(whole, small, "64 KiB chunks vs \(chunk)-byte chunks")
    return 0
}
