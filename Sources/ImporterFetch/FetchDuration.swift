import Foundation

/// A duration as the command line writes it: `90s`, `5m`, `1h`, `1500ms`, or bare seconds (`30`).
public struct FetchDuration: Sendable, Equatable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Parses `text`; nil when it is not a positive number with one of the units.
    public init?(parsing text: String) {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let (number, scale) = units.first { trimmed.hasSuffix($0.0) }.map { (String(trimmed.dropLast($0.0.count)), $0.1) } ?? (trimmed, 1000)
        guard let value = Double(number), value > 0, value.isFinite, value * Double(scale) < 1e15 else { return nil }
        milliseconds = Int64((value * Double(scale)).rounded())
    }

    public var seconds: Double { Double(milliseconds) / 1000 }

    public var description: String {
        milliseconds % 60_000 == 0 ? "\(milliseconds / 60_000)m" : milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}
