import Foundation

extension Value {
    /// SQLite's ordering: NULL < numbers < text.
    package static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.text(let x), .text(let y)): return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        case (.text, _): return 1
        case (_, .text): return -1
        default:
            let x = a.doubleValue ?? 0, y = b.doubleValue ?? 0
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// Equal, allowing real numbers to differ by summation order (relative 1e-9).
    package func nearlyEquals(_ other: Value) -> Bool {
        if case .real(let x) = self, let y = other.doubleValue { return abs(x - y) <= 1e-9 * max(1, abs(x), abs(y)) }
        if case .real(let y) = other, let x = doubleValue { return abs(x - y) <= 1e-9 * max(1, abs(x), abs(y)) }
        return isSame(as: other)
    }
}
