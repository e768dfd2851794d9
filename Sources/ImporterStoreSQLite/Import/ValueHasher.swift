import CSQLite
import Foundation
import ImporterModel

/// A keyed 64-bit hash of a sequence of values in one canonical form, the same whether the values
/// come from a `RecordBatch` or from a stored row, so that equal hashes say "equal values" to
/// within a chance of about 2⁻⁶⁴ (multiply-and-fold mixing, as wyhash; the secrets are drawn at
/// random per hasher, so no feed can be crafted to collide).
///
/// Canonical form, by SQLite's own notion of equal values (`IS`): NULL; a number, an integer and
/// a REAL of the same value alike (integers past 2⁵³ that a double cannot hold exactly as
/// themselves); text by its bytes; a BLOB never equal to anything a batch holds.
struct ValueHasher {
    private let secrets: (UInt64, UInt64, UInt64)

    init<Generator: RandomNumberGenerator>(using generator: inout Generator) {
        secrets = (generator.next() | 1, generator.next() | 1, generator.next() | 1)
    }

    /// The running hash of one sequence.
    struct State {
        fileprivate var value: UInt64
    }

    var start: State { State(value: secrets.2) }

    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    @inline(__always)
    private func mix(_ state: inout State, _ a: UInt64, _ b: UInt64) {
        state.value = Self.fold(state.value ^ a ^ secrets.0, b ^ secrets.1)
    }

    private enum Tag: UInt64 {
        case null = 0x6e75_6c6c, number = 0x6e75_6d62, integer = 0x696e_7467, text = 0x7465_7874, blob = 0x626c_6f62
    }

    @inline(__always)
    func addNull(_ state: inout State) { mix(&state, Tag.null.rawValue, 0) }

    @inline(__always)
    func add(_ value: Double, _ state: inout State) {
        mix(&state, Tag.number.rawValue, (value == 0 ? 0 : value).bitPattern)
    }

    @inline(__always)
    func add(_ value: Int64, _ state: inout State) {
        let number = Double(value)
        if number.magnitude < 0x1p63, Int64(number) == value { return add(number, &state) }
        mix(&state, Tag.integer.rawValue, UInt64(bitPattern: value))
    }

    func add(text: UnsafeRawPointer, count: Int, _ state: inout State) {
        mix(&state, Tag.text.rawValue, UInt64(count))
        var offset = 0
        while offset + 16 <= count {
            mix(&state, text.loadUnaligned(fromByteOffset: offset, as: UInt64.self), text.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            offset += 16
        }
        guard offset < count else { return }
        var tail: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &tail) { $0.baseAddress?.copyMemory(from: text + offset, byteCount: count - offset) }
        mix(&state, tail.0, tail.1)
    }

    /// A batch value.
    @inline(__always)
    func add(_ value: BatchValue, _ arena: UnsafePointer<UInt8>, _ state: inout State) {
        switch value {
        case .null: addNull(&state)
        case .integer(let v): add(v, &state)
        case .real(let v): add(v, &state)
        case .text(let start, let count): add(text: arena + Int(start), count: Int(count), &state)
        }
    }

    /// A stored value (`sqlite3_column_value` of the current row). The value is "unprotected";
    /// reading it is safe here because each connection is opened `NOMUTEX` and used by one thread.
    @inline(__always)
    func add(stored value: OpaquePointer, _ state: inout State) {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: addNull(&state)
        case SQLITE_INTEGER: add(sqlite3_value_int64(value), &state)
        case SQLITE_FLOAT: add(sqlite3_value_double(value), &state)
        case SQLITE_TEXT:
            let text = UnsafeRawPointer(sqlite3_value_text(value)) ?? UnsafeRawPointer(emptyBytes)
            add(text: text, count: Int(sqlite3_value_bytes(value)), &state)
        default: mix(&state, Tag.blob.rawValue, UInt64(sqlite3_value_bytes(value)))
        }
    }

    func finish(_ state: State) -> UInt64 { Self.fold(state.value ^ secrets.1, secrets.0 ^ 0x9E37_79B9_7F4A_7C15) }
}
