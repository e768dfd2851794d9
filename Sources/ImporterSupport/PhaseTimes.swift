import Foundation

/// Where an import run spent its wall-clock time, phase by phase, in the order the phases ran.
///
/// Phases: `read` (reading and mapping the feeds, on the reader thread: it overlaps `upsert`),
/// `read wait` (the writer waiting for the reader), `upsert` (writing record batches), `sort` (a
/// feed out of key order sorted through temporary files, `KeyOrderedBatches`), `drift`,
/// `sync deletes`, `history` (change rows and the transaction row), `views` (replay and build) and
/// `commit`. Wall time is the sum of all phases but `read`.
public struct PhaseTimes: Sendable, Equatable {
    public private(set) var phases: [(name: String, seconds: Double)] = []

    public init() {}

    /// Adds `seconds` to the phase `name` (appended the first time it is met).
    public mutating func add(_ name: String, _ seconds: Double) {
        if let index = phases.firstIndex(where: { $0.name == name }) {
            phases[index].seconds += seconds
        } else {
            phases.append((name, seconds))
        }
    }

    /// Adds the times of `other`'s phases to these.
    public mutating func add(_ other: PhaseTimes) {
        for phase in other.phases { add(phase.name, phase.seconds) }
    }

    /// Runs `body`, adding its duration to the phase `name`.
    public mutating func time<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let began = clock.now
        defer { add(name, Self.seconds(began.duration(to: clock.now))) }
        return try body()
    }

    public subscript(name: String) -> Double? {
        phases.first { $0.name == name }?.seconds
    }

    /// `read=0.612 upsert=1.204 …`: the form the run logs (one line, stable for scripts).
    public var description: String {
        phases.map { "\($0.name.replacingOccurrences(of: " ", with: "_"))=\(String(format: "%.3f", $0.seconds))" }.joined(separator: " ")
    }

    public static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    public static func == (lhs: PhaseTimes, rhs: PhaseTimes) -> Bool {
        lhs.phases.map(\.name) == rhs.phases.map(\.name) && lhs.phases.map(\.seconds) == rhs.phases.map(\.seconds)
    }
}
