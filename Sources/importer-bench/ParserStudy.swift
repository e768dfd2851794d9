import Foundation
import ImporterKit

/// Parsing alone, in-process: the feed read, tokenized and mapped into record batches, nothing
/// written. importer's own streaming scanner (`NASAColumnarReader` + `RecordMapper`) beside yajl
/// (`YajlFireballReader`, the same per-record work on yajl's callbacks), each also without the
/// mapping (the reader alone; yajl with no callbacks) to show what tokenizing costs by itself.
///
/// Each case runs `repeats` times, interleaved; the table shows the fastest run and the largest
/// growth of this process's peak RSS above its RSS at the start of a run (the peak is reset
/// before each run through `/proc/self/clear_refs`). The two mapping readers must produce the same
/// values (`ParseDigest`).
enum ParserStudy {
    struct Run {
        var records: Int
        var bytes: Int
        var digest: ParseDigest?
    }

    /// One reader, with or without the mapping.
    struct Case {
        enum Reader { case own, yajl }
        var label: String
        var reader: Reader
        var mapping: Bool

        func read(_ path: String) throws -> Run {
            switch reader {
            case .own: try ParserStudy.ownScanner(path: path, mapping: mapping)
            case .yajl: try ParserStudy.yajl(path: path, mapping: mapping)
            }
        }
    }

    /// The cases, in table order; the first two are the mapping readers whose digests must agree.
    static let cases = [
        Case(label: "own scanner + mapping (importer's)", reader: .own, mapping: true),
        Case(label: "yajl 2.1 + the same mapping", reader: .yajl, mapping: true),
        Case(label: "own scanner alone (no mapping)", reader: .own, mapping: false),
        Case(label: "yajl alone (no callbacks)", reader: .yajl, mapping: false),
    ]

    static func run(path: String, records: Int, repeats: Int) throws -> TextTable {
        var best = [Double](repeating: .infinity, count: cases.count)
        var growth = [Int?](repeating: 0, count: cases.count)
        var runs = [Run?](repeating: nil, count: cases.count)
        for _ in 0..<repeats {
            for (index, study) in cases.enumerated() {
                let ((run, seconds), grown) = try ProcessMemory.peakGrowth { try Stopwatch.seconds { try study.read(path) } }
                if study.reader == .own || study.mapping, run.records != records {
                    throw BenchError.failed("\(study.label) read \(run.records) records, expected \(records)")
                }
                best[index] = min(best[index], seconds)
                growth[index] = grown.flatMap { grown in growth[index].map { max($0, grown) } }
                runs[index] = run
            }
        }
        guard let own = runs[0]?.digest, let yajl = runs[1]?.digest else { throw BenchError.failed("no digest from the mapping readers") }
        guard own == yajl else { throw BenchError.failed("the readers disagree:\n  own:  \(own)\n  yajl: \(yajl)") }

        var table = TextTable(title: "Parsing only (in-process, nothing written; best of \(repeats))",
                              headers: ["reader", "seconds", "rows/s", "MB/s", "peak RSS growth MiB"])
        for (index, study) in cases.enumerated() {
            let bytes = runs[index]?.bytes ?? 0
            table.add([study.label, best[index].formatted(2), (Double(records) / best[index]).formatted(0),
                       (Double(bytes) / best[index] / 1e6).formatted(0), growth[index].map { mebibytes(kiB: $0) } ?? "n/a"])
        }
        table.notes = [
            "same values from both mapping readers: \(own)",
            "own scanner: 1 MiB read buffer; yajl: 64 KiB chunks through yajl_parse, UTF-8 validation on (its default)",
            "peak RSS growth: VmHWM after a run minus VmRSS before it (peak reset first), largest over the runs; heap the",
            "  allocator kept from earlier steps is reused without growing RSS, so it is a lower bound",
        ]
        if growth.contains(where: { $0 == nil }) { table.notes.append("n/a: the peak could not be reset (/proc/self/clear_refs)") }
        return table
    }

    /// importer's own streaming scanner (`NASAColumnarReader`), with the fireball mapping into
    /// batches of 8192 (folded into a digest and cleared when full) or, without `mapping`, alone.
    static func ownScanner(path: String, mapping: Bool) throws -> Run {
        let source = try ByteSource(path: path)
        let reader = NASAColumnarReader(source: source)
        var mapper = try RecordMapper(entity: FireballModel.entity, mapping: FireballModel.apiFeed)
        let header = try reader.open(requesting: mapper.requestedFields)
        try mapper.configure(header: header, sourceName: path)
        var batch = mapper.makeBatch(capacity: 8192)
        var record = RawRecord(slotCount: mapper.requestedFields.count)
        var digest = ParseDigest()
        var records = 0
        while try reader.next(into: &record) {
            records += 1
            guard mapping else { continue }
            if let reject = mapper.map(record, into: &batch) { throw BenchError.failed("reject: \(reject)") }
            if batch.count == 8192 {
                digest.add(batch)
                batch.removeAll()
            }
        }
        guard mapping else { return Run(records: records, bytes: source.bytesRead, digest: nil) }
        digest.add(batch)
        return Run(records: records, bytes: source.bytesRead, digest: digest)
    }

    static func yajl(path: String, mapping: Bool) throws -> Run {
        let result = try YajlFireballReader.read(path: path, mapping: mapping)
        return Run(records: result.records, bytes: result.bytes, digest: result.digest)
    }
}
