/// A size in bytes as a person writes it: `4096`, `512K`, `16M`, `1G` (binary multiples, as
/// `sort -S` reads them; a trailing `B` or `iB` allowed).
public struct ByteSize: Sendable, Equatable, CustomStringConvertible {
    public var bytes: Int

    public init(bytes: Int) { self.bytes = bytes }

    /// Nil when `text` is not a positive whole number with an optional K, M or G.
    public init?(parsing text: String) {
        var digits = Substring(text.uppercased())
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        let shift: Int
        switch digits.last {
        case "K": shift = 10
        case "M": shift = 20
        case "G": shift = 30
        default: shift = 0
        }
        if shift > 0 { digits = digits.dropLast() }
        guard let count = Int(digits), count > 0, count <= Int.max >> shift else { return nil }
        bytes = count << shift
    }

    public var description: String {
        for (shift, unit) in [(30, "G"), (20, "M"), (10, "K")] where bytes % (1 << shift) == 0 { return "\(bytes >> shift)\(unit)" }
        return "\(bytes)"
    }
}
