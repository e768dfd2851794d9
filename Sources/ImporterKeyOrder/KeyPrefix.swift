import Foundation
import ImporterModel

/// The first 16 bytes of a record's first key value as two integers whose order is the key's
/// (normalized-key sorting): most comparisons of a sort end on them, the rest (equal prefixes)
/// compare the whole key.
///
/// Invariant: for two records of one run, `a < b` as prefixes implies `a`'s key orders before
/// `b`'s; equal prefixes say nothing. That holds because one run's prefixes are all of one kind,
/// chosen from its first key values (all text, all integers or all reals); any other mix gets
/// zero prefixes, and every comparison falls to the whole key.
struct KeyPrefix: Comparable {
    var high: UInt64
    var low: UInt64

    static let none = KeyPrefix(high: 0, low: 0)

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    enum Kind { case text, integer, real, mixed }

    /// The one kind of the first key values of `batches`' records, or `.mixed`.
    static func kind(of batches: [RecordBatch]) -> Kind {
        var kind: Kind?
        for batch in batches {
            guard let position = batch.keyPositions.first else { return .mixed }
            for record in 0..<batch.count {
                let this: Kind = switch batch.value(record: record, position: position) {
                case .text: .text
                case .integer: .integer
                case .real: .real
                case .null: .mixed
                }
                if this == .mixed || (kind != nil && kind != this) { return .mixed }
                kind = this
            }
        }
        return kind ?? .mixed
    }

    /// The prefix of `record`'s first key value, for a run of `kind`.
    @inline(__always)
    init(_ batch: RecordBatch, _ record: Int, kind: Kind, arena: UnsafePointer<UInt8>) {
        guard kind != .mixed, let position = batch.keyPositions.first else {
            self = .none
            return
        }
        switch batch.value(record: record, position: position) {
        case .text(let start, let count):
            var bytes: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(start: arena + Int(start), count: min(Int(count), 16))) }
            self.init(high: UInt64(bigEndian: bytes.0), low: UInt64(bigEndian: bytes.1))
        case .integer(let value):
            self.init(high: UInt64(bitPattern: value) ^ (1 << 63), low: 0)
        case .real(let value):
            let bits = (value == 0 ? 0.0 : value).bitPattern // -0.0 == 0.0 as keys
            self.init(high: value.sign == .minus ? ~bits : bits | (1 << 63), low: 0)
        case .null:
            self = .none
        }
    }

    static func < (a: KeyPrefix, b: KeyPrefix) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}
