import Foundation
import ImporterKit

/// Parsing alone: the feed read, tokenized and mapped into record batches, nothing written.
enum ParserStudy {
    struct Result {
        var seconds: Double
        var records: Int
        var bytes: Int
    }

    /// importer's own streaming scanner (`NASAColumnarReader`) and the fireball mapping.
    static func ownScanner(path: String) throws -> Result {
        let began = Date()
        let source = try ByteSource(path: path)
        let reader = NASAColumnarReader(source: source)
        var mapper = try RecordMapper(entity: FireballModel.entity, mapping: FireballModel.apiFeed)
        let header = try reader.open(requesting: mapper.requestedFields)
        try mapper.configure(header: header, location: SourceLocation(source: path, line: 1, column: 1))
        var batch = mapper.makeBatch(sourceName: path, capacity: 8192)
        var record = RawRecord(slotCount: mapper.requestedFields.count)
        var records = 0
        while try reader.next(into: &record) {
            if let reject = mapper.map(record, into: &batch) { throw BenchError.failed("reject: \(reject)") }
            records += 1
            if batch.count == 8192 { batch.removeAll() }
        }
        return Result(seconds: Date().timeIntervalSince(began), records: records, bytes: source.bytesRead)
    }
}
