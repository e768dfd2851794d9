import ImporterModel

/// Samples a CSV feed: its header names are the fields; the rows are read by `CSVRecordsReader`
/// (so quoting, line ends and errors are exactly the importer's), at most `limit` of them.
final class CSVSampler {
    private let path: String

    init(path: String) {
        self.path = path
    }

    func sample(limit: Int) throws(FeedError) -> FeedSample {
        let header = try Self.header(of: ByteSource(path: path))
        let source = try ByteSource(path: path)
        let reader = try CSVRecordsReader(source: source, mapping: FeedMapping(name: "sample", entity: "Sample", format: .csv, fields: []))
        _ = try reader.open(requesting: header)
        var sample = FeedSample(format: .csv)
        var record = RawRecord(slotCount: header.count)
        while sample.recordFields.count < limit, try reader.next(into: &record) {
            sample.recordFields.append(header.indices.map { column in
                SampledField(address: header[column], words: [header[column]], values: [.string(record.text(of: column))])
            })
        }
        return sample
    }

    private static func read(_ source: ByteSource, into buffer: inout [UInt8]) throws(FeedError) -> Int {
        var result: Result<Int, FeedError> = .success(0)
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            do throws(FeedError) { result = .success(try source.read(into: base, count: raw.count)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// The names of the first non-empty row (RFC 4180 quoting; a UTF-8 byte order mark skipped).
    /// Reads at most 1 MiB: a longer header is not a CSV header.
    static func header(of source: ByteSource) throws(FeedError) -> [String] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var names: [String] = []
        var field: [UInt8] = []
        var quoted = false, afterQuote = false, sawAny = false
        while bytes.count < 1 << 20 {
            let n = try Self.read(source, into: &buffer)
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") { field.append(byte); index += 1 } else { quoted = false; afterQuote = true }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where field.isEmpty && !afterQuote:
                quoted = true
                sawAny = true
            case UInt8(ascii: ","):
                names.append(String(decoding: field, as: UTF8.self))
                field.removeAll()
                afterQuote = false
                sawAny = true
            case 0x0A, 0x0D:
                if sawAny || !field.isEmpty {
                    names.append(String(decoding: field, as: UTF8.self))
                    return names
                }
            default:
                field.append(byte)
                sawAny = true
            }
        }
        if sawAny || !field.isEmpty {
            names.append(String(decoding: field, as: UTF8.self))
            return names
        }
        throw FeedError.shape(SourceLocation(source: source.name, line: 1, column: 1), "the CSV feed is empty: no header row")
    }
}
