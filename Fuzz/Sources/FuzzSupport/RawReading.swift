import Foundation
import ImporterKit

/// Reading a feed's raw records directly (no mapper): any field addresses, any `repeated` policies,
/// and invariants every record must keep.
extension Fuzz {
    /// The policies a raw reading cycles through, slot by slot.
    public static let repeatedPolicies: [RepeatedValues] = [.reject, .first, .last, .all, .join(",")]

    /// `fields.count` policies: `repeatedPolicies` from `offset` on, one per slot.
    public static func policies(count: Int, offset: Int) -> [RepeatedValues] {
        (0..<count).map { repeatedPolicies[($0 + offset) % repeatedPolicies.count] }
    }

    /// Opens a reader with `fields`, reads every record into a `RawRecord` with `repeated`, checks
    /// `rawInvariantProblems` on each (a failure aborts), and transcribes slots with their
    /// occurrences. `positions: false` leaves lines and columns out.
    public static func readRaw(path: String, fields: [String], repeated: [RepeatedValues], positions: Bool = true,
                               makeReader: (ByteSource) throws(FeedError) -> any RecordReader) -> Transcript {
        var transcript = Transcript()
        do {
            let source = try ByteSource(path: path)
            let reader = try makeReader(source)
            let header = try reader.open(requesting: fields)
            transcript.lines.append("header supplied=\(header.supplied)")
            var record = RawRecord(slotCount: fields.count, repeated: repeated)
            while try reader.next(into: &record) {
                let problems = rawInvariantProblems(record)
                if !problems.isEmpty {
                    invariantFailure(problems, record: record, fields: fields)
                }
                var line = "record \(record.index)"
                if positions { line += " @\(record.line):\(record.column)" }
                for slot in record.slots.indices {
                    let s = record.slots[slot]
                    line += " | \(s.kind)×\(s.occurrences):\(record.text(of: slot))"
                    if positions { line += "@\(s.line):\(s.column)" }
                }
                transcript.lines.append(line)
            }
            if try reader.next(into: &record) { fatalError("next(into:) returned true after returning false") }
        } catch let error as FeedError {
            transcript.error = "\(kind(of: error, positions: positions))"
        } catch {
            transcript.error = "\(type(of: error)): \(error)"
        }
        return transcript
    }

    /// What is wrong with a record a reader filled (empty when nothing): a value's bytes outside
    /// `record.bytes`, occurrences that do not match the kind, a `repeated: all` value that is not
    /// a JSON array of at most `occurrences` elements, or a `join` value that is not a string.
    public static func rawInvariantProblems(_ record: RawRecord) -> [String] {
        var problems: [String] = []
        for (index, slot) in record.slots.enumerated() {
            let policy = index < record.repeated.count ? record.repeated[index] : .reject
            if (slot.kind == .absent) != (slot.occurrences == 0) {
                problems.append("slot \(index): kind \(slot.kind) with \(slot.occurrences) occurrences")
            }
            guard slot.kind == .number || slot.kind == .string else { continue }
            let start = Int(slot.start), count = Int(slot.count)
            guard start >= 0, count >= 0, start + count <= record.bytes.count else {
                problems.append("slot \(index): bytes \(start)+\(count) outside the record's \(record.bytes.count)")
                continue
            }
            if case .all = policy {
                let text = Data(record.bytes[start..<(start + count)])
                guard let array = try? JSONSerialization.jsonObject(with: text) as? [Any] else {
                    problems.append("slot \(index) (all): not a JSON array: \(String(decoding: text, as: UTF8.self))")
                    continue
                }
                // Each value is one element, but an empty array is an occurrence with none.
                if array.count > Int(slot.occurrences) {
                    problems.append("slot \(index) (all): \(array.count) elements, \(slot.occurrences) occurrences")
                }
            }
        }
        return problems
    }

    static func invariantFailure(_ problems: [String], record: RawRecord, fields: [String]) -> Never {
        var report = "INVARIANT FAILURE in record \(record.index)\n"
        for problem in problems { report += "  \(problem)\n" }
        for (index, slot) in record.slots.enumerated() {
            report += "  slot \(index) \(fields[index]) \(record.repeated[index]): \(slot.kind)×\(slot.occurrences) \(slot.start)+\(slot.count)\n"
        }
        report += "  bytes (\(record.bytes.count)): \(String(decoding: record.bytes, as: UTF8.self))\n"
        FileHandle.standardError.write(Data(report.utf8))
        abort()
    }
}
