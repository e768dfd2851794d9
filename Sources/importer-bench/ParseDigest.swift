import ImporterKit

/// A summary of the records a reader mapped, to check that two readers produced the same values:
/// record and null counts, sums of the numbers (plain and weighted by position, in record order)
/// and an FNV-1a hash of the text values. Positions are those of the fireball feed's supplied
/// attributes in entity order: 0 `date`, 1 `energy`, 2 `impact_energy`, 3 `latitude`,
/// 4 `longitude`, 5 `altitude`, 6 `velocity`.
struct ParseDigest: Equatable, CustomStringConvertible {
    var records = 0
    var nulls = 0
    var sum = 0.0
    var weightedSum = 0.0
    var textHash: UInt64 = 0xCBF2_9CE4_8422_2325

    @inline(__always)
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { textHash = (textHash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        textHash = (textHash ^ 0xFF) &* 0x100_0000_01B3
    }

    @inline(__always)
    mutating func real(_ value: Double, position: Int) {
        sum += value
        weightedSum += value * Double(position)
    }

    /// Folds in every record of an importer `RecordBatch`.
    mutating func add(_ batch: RecordBatch) {
        batch.arena.withUnsafeBufferPointer { arena in
            for record in 0..<batch.count {
                for position in 0..<batch.width {
                    switch batch.value(record: record, position: position) {
                    case .null: nulls += 1
                    case .integer(let v): real(Double(v), position: position)
                    case .real(let v): real(v, position: position)
                    case .text(let start, let count): text(UnsafeBufferPointer(rebasing: arena[Int(start)..<Int(start + count)]))
                    }
                }
                records += 1
            }
        }
    }

    var description: String {
        "\(records) records, \(nulls) nulls, sum \(sum), weighted \(weightedSum), text hash \(String(textHash, radix: 16))"
    }
}
