import ImporterModel

/// Samples a CSV feed: its header names are the fields; the rows are read by `CSVRecordsReader`
/// (so quoting, line ends and errors are exactly the importer's): `limit` of them sampled, the
/// rest read for their types and presence only (`FeedSample.tail`).
final class CSVSampler {
    private let path: String

    init(path: String) {
        self.path = path
    }

    func sample(limit: Int) throws(FeedError) -> FeedSample {
        var mapping = FeedMapping(name: "sample", entity: "Sample", format: .csv, fields: [])
        mapping.csv = try Self.dialect(of: ByteSource(path: path))
        // The header as the importer will read it (decoded, split at the dialect's delimiter).
        let header = try CSVRecordsReader(source: ByteSource(path: path), mapping: mapping).open(requesting: []).columns ?? []
        let reader = try CSVRecordsReader(source: ByteSource(path: path), mapping: mapping)
        _ = try reader.open(requesting: header)
        var sample = FeedSample(format: .csv)
        sample.csv = mapping.csv
        var record = RawRecord(slotCount: header.count)
        while try reader.next(into: &record) {
            let fields = header.indices.map { column in
                SampledField(address: header[column], words: [header[column]], values: [.string(record.text(of: column))])
            }
            if sample.recordFields.count < limit { sample.recordFields.append(fields) } else { sample.observeTail(fields) }
        }
        return sample
    }

    /// The dialect the file's first 64 KiB suggest: its encoding (UTF-16 by its byte order mark;
    /// UTF-8 when the bytes are valid UTF-8; else Windows-1252 when it defines every byte, else
    /// Latin-1), and where its table is (`CSVLayoutSniffer`: the delimiter of `,` `;` tab `|` its
    /// rows share, a preamble, `#` comments, a second table after a blank line).
    static func dialect(of source: ByteSource) throws(FeedError) -> CSVDialect {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = try read(source, into: &buffer)
        let bytes = Array(buffer[0 ..< count])
        var dialect = CSVDialect()
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            dialect.encoding = .utf16
            return dialect
        }
        if String(validating: bytes.dropLast(Self.cutSequence(bytes)), as: UTF8.self) == nil {
            let undefined: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
            dialect.encoding = bytes.contains(where: undefined.contains) ? .latin1 : .windows1252
        }
        return CSVLayoutSniffer(bytes, cut: count == buffer.count).applied(to: dialect)
    }

    /// How many bytes at the end of `bytes` are an incomplete UTF-8 sequence (the 64 KiB cut).
    private static func cutSequence(_ bytes: [UInt8]) -> Int {
        guard !bytes.isEmpty else { return 0 }
        for back in 1 ... min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0xC0 { return byte >= 0xF0 ? (back < 4 ? back : 0) : byte >= 0xE0 ? (back < 3 ? back : 0) : (back < 2 ? back : 0) }
            if byte & 0x80 == 0 { return 0 }
        }
        return 0
    }

    private static func read(_ source: ByteSource, into buffer: inout [UInt8]) throws(FeedError) -> Int {
        var result: Result<Int, FeedError> = .success(0)
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            do throws(FeedError) { result = .success(try source.read(into: base, count: raw.count)) } catch { result = .failure(error) }
        }
        return try result.get()
    }
}
