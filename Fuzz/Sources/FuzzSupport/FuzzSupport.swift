import CFuzzSupport
import Foundation
import ImporterKit

/// Shared plumbing of the fuzz targets (each defines `LLVMFuzzerTestOneInput`; SwiftPM links
/// libFuzzer's `main` and compiles them with `-parse-as-library`): the sample models, the input file the
/// readers open (ByteSource reads paths only), and the differential check of two readings.
public enum Fuzz {
    /// The repository's root: Fuzz/Sources/FuzzSupport/FuzzSupport.swift → ../../..
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A model from SampleData/models (fatal when it does not load: the harness is broken).
    public static func sampleModel(_ name: String) -> Model {
        let path = repositoryRoot.appendingPathComponent("SampleData/models").appendingPathComponent(name).path
        do {
            return try ModelFile.load(path: path)
        } catch {
            fatalError("cannot load \(path): \(error)")
        }
    }

    /// The only feed of a sample model, with its entity.
    public static func sampleFeed(_ name: String) -> (FeedMapping, EntityDescription) {
        let model = sampleModel(name)
        guard let feed = model.feeds.first, let entity = model.entity(named: feed.entity) else {
            fatalError("\(name) has no feed with an entity")
        }
        return (feed, entity)
    }

    /// libFuzzer's input as a buffer.
    public static func buffer(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: size == 0 ? nil : bytes, count: size)
    }

    // MARK: The input file

    /// An unlinked file in /dev/shm holding the current input, opened by path through /proc/self/fd.
    public final class InputFile: @unchecked Sendable {
        public let path: String
        private let descriptor: Int32

        public init(_ name: String) {
            let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            let file = "\(directory)/importer-fuzz-\(getpid())-\(name)"
            descriptor = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { fatalError("cannot create \(file)") }
            unlink(file)
            path = "/proc/self/fd/\(descriptor)"
        }

        public func write(_ data: UnsafeBufferPointer<UInt8>) {
            guard ftruncate(descriptor, 0) == 0 else { fatalError("ftruncate failed") }
            var written = 0
            while written < data.count {
                let n = pwrite(descriptor, data.baseAddress! + written, data.count - written, off_t(written))
                guard n > 0 else { fatalError("pwrite failed") }
                written += n
            }
        }
    }

    /// A small deterministic choice from the input (a buffer or chunk size), so a reproducer
    /// replays the same way.
    public static func choice(_ data: UnsafeBufferPointer<UInt8>, _ range: ClosedRange<Int>) -> Int {
        var hash: UInt64 = 0xcbf29ce484222325
        hash = (hash ^ UInt64(data.count)) &* 0x100000001b3
        for byte in data.prefix(16) { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        for byte in data.suffix(16) { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return range.lowerBound + Int(hash % UInt64(range.count))
    }

    // MARK: Reading a feed as the product does

    /// What a reading produced: the header, every record with its slots and mapping result, and
    /// the error that ended it. Two readings of the same bytes must agree (up to `positions`).
    public struct Transcript: Equatable, CustomStringConvertible {
        public var lines: [String] = []
        public var error: String?
        public var failed: Bool { error != nil }
        public var description: String { (lines + ["end: \(error ?? "ok")"]).joined(separator: "\n") }
    }

    /// Whether the targets also check for the findings already reported (Fuzz/README.md), which they
    /// otherwise step around to find others (`FUZZ_KNOWN=1`; regressions are replayed with it).
    public static let checkKnownFindings = ProcessInfo.processInfo.environment["FUZZ_KNOWN"] == "1"

    /// Whether the differential check runs (`FUZZ_DIFF=0` turns it off).
    public static let differential = ProcessInfo.processInfo.environment["FUZZ_DIFF"] != "0"

    /// Reads the feed at `path` like `MappedFeed` does: open with the mapper's fields, configure the
    /// mapper, then `next(into:)` until false, mapping every record into batches.
    /// `positions: false` leaves lines and columns out (XML positions depend on chunking).
    public static func read(path: String, mapping: FeedMapping, entity: EntityDescription, positions: Bool = true,
                            makeReader: (ByteSource) throws(FeedError) -> any RecordReader) -> Transcript {
        var transcript = Transcript()
        do {
            let source = try ByteSource(path: path)
            let reader = try makeReader(source)
            var mapper = try RecordMapper(entity: entity, mapping: mapping)
            let header = try reader.open(requesting: mapper.requestedFields)
            transcript.lines.append("header supplied=\(header.supplied) count=\(header.declaredCount.map(String.init) ?? "-") pointer=\(header.recordsPointer ?? "-")")
            try mapper.configure(header: header, sourceName: source.name)
            var batch = mapper.makeBatch(capacity: 8)
            var record = RawRecord(slotCount: mapper.requestedFields.count)
            while try reader.next(into: &record) {
                var line = "record \(record.index)"
                if positions { line += " @\(record.line):\(record.column)" }
                for slot in record.slots.indices {
                    let s = record.slots[slot]
                    line += " | \(s.kind):\(record.text(of: slot))"
                    if positions { line += "@\(s.line):\(s.column)" }
                }
                if let reject = mapper.map(record, into: &batch) {
                    line += " → reject \(reject.attribute ?? "-"): \(reject.reason)"
                } else {
                    let last = batch.count - 1
                    line += " →"
                    for position in 0..<batch.width { line += " \(batch.publicValue(record: last, position: position))" }
                    if batch.count >= 8 { batch.removeAll() }
                }
                transcript.lines.append(line)
                _ = reader.progress
            }
            // The end stays the end.
            if try reader.next(into: &record) { fatalError("next(into:) returned true after returning false") }
        } catch let error as FeedError {
            transcript.error = positions ? "\(kind(of: error))" : "\(kind(of: error, positions: false))"
        } catch {
            transcript.error = "\(type(of: error)): \(error)"
        }
        return transcript
    }

    /// An error's case, location and (for syntax errors) what was expected: not what was found,
    /// whose excerpt depends on how much of the input is in the buffer.
    static func kind(of error: FeedError, positions: Bool = true) -> String {
        func at(_ location: SourceLocation) -> String {
            positions ? "\(location.line):\(location.column) record \(location.recordIndex.map(String.init) ?? "-")" : "record \(location.recordIndex.map(String.init) ?? "-")"
        }
        switch error {
        case .syntax(let location, let expected, _): return "syntax \(at(location)) expected \(expected)"
        case .shape(let location, let message): return "shape \(at(location)) \(message)"
        case .countMismatch(let location, let declared, let actual): return "countMismatch \(at(location)) \(declared) \(actual)"
        case .unsupportedVersion(let location, let version, _): return "unsupportedVersion \(at(location)) \(version)"
        case .unreadable(_, let reason): return "unreadable \(reason)"
        case .errorAnswer(let location, let message): return "errorAnswer \(at(location)) \(message)"
        case .recordTooLarge(let location, let limit): return "recordTooLarge \(at(location)) \(limit)"
        }
    }

    /// Whether each reading is printed to standard error (`FUZZ_PRINT=1`, to look at a replayed input).
    public static let printReadings = ProcessInfo.processInfo.environment["FUZZ_PRINT"] == "1"

    /// Fails (a crash libFuzzer records) when two readings of the same input disagree.
    public static func expectSame(_ a: Transcript, _ b: Transcript, _ what: String) {
        if printReadings {
            FileHandle.standardError.write(Data("--- first reading:\n\(a)\n--- second reading (\(what)):\n\(b)\n".utf8))
        }
        guard differential, a != b else { return }
        var report = "DIFFERENTIAL MISMATCH (\(what))\n--- first reading:\n\(a)\n--- second reading:\n\(b)\n"
        report.append("(set FUZZ_DIFF=0 to fuzz for crashes only)\n")
        FileHandle.standardError.write(Data(report.utf8))
        abort()
    }

    /// Runs `body` with reads of the input file cut to at most `limit` bytes each.
    public static func withReadLimit<T>(_ limit: Int, _ body: () -> T) -> T {
        fuzz_set_read_limit(limit)
        defer { fuzz_set_read_limit(0) }
        return body()
    }
}

