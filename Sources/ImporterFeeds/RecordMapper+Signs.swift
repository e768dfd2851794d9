import Foundation
import ImporterModel

/// Signs and booleans as feeds write them: markers glued to a number or in a field of their own
/// (`N`/`S`, `E`/`W`), and the words of a boolean.
extension RecordMapper {
    func markers(_ plan: Plan, separator: String) -> String {
        let detail = details[plan.detail]
        return (detail.negative + detail.positive).map { String(decoding: $0, as: UTF8.self) }.joined(separator: separator)
    }

    /// The sign marker that `start[0..<count]` is (or, with `suffix`, ends with): its length and
    /// whether it means negative; nil when there is none.
    @inline(__always)
    func sign(_ start: UnsafePointer<UInt8>, _ count: Int, _ plan: Plan, suffix: Bool) -> (length: Int, negative: Bool)? {
        details.withUnsafeBufferPointer { details in
            func match(_ markers: [[UInt8]]) -> Int? {
                for marker in markers where suffix ? marker.count < count : marker.count == count {
                    let at = start + count - marker.count
                    // Single-byte markers (N/S/E/W) are compared without calling memcmp.
                    if marker.count == 1 ? marker[0] == at[0] : memcmp(at, marker, marker.count) == 0 { return marker.count }
                }
                return nil
            }
            if let length = match(details[plan.detail].negative) { return (length, true) }
            if let length = match(details[plan.detail].positive) { return (length, false) }
            return nil
        }
    }

    /// Whether the sign field says negative, or nil when it holds no known marker.
    @inline(__always)
    func direction(_ record: RawRecord, _ base: UnsafePointer<UInt8>, _ plan: Plan) -> Bool? {
        let slot = record.slots[plan.signSlot]
        guard slot.kind == .string else { return nil }
        return sign(base + Int(slot.start), Int(slot.count), plan, suffix: false)?.negative
    }

    /// `true`, `1`, `yes` or `false`, `0`, `no` (ASCII case-insensitive), compared as bytes.
    static func boolean(_ start: UnsafePointer<UInt8>, _ count: Int) -> Bool? {
        guard count <= 5 else { return nil }
        var word: UInt64 = 0
        for index in 0..<count {
            let byte = start[index]
            word = word << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        // The words' ASCII bytes, big-endian: "true" = 74 72 75 65, "no" = 6E 6F, ...
        switch word {
        case 0x7472_7565, 0x31, 0x79_6573: return true
        case 0x66_616C_7365, 0x30, 0x6E6F: return false
        default: return nil
        }
    }

    func describeSign(_ record: RawRecord, _ plan: Plan) -> String {
        switch record.slots[plan.signSlot].kind {
        case .absent, .null: "null"
        default: "'\(record.text(of: plan.signSlot))'"
        }
    }
}
