import Foundation
import Synchronization

/// The zone of a local time that carries no offset (`zone:` of a field): UTC or a fixed offset, or
/// an IANA zone (the system's tzdata), whose offset changes with daylight saving.
///
/// Rules for an IANA zone, at the two transitions of each year: a local time the clocks skipped
/// (02:30 when they jump from 02:00 to 03:00) does not exist and is refused (a located reject);
/// a local time that happens twice (the repeated hour when they fall back) is the earlier of the
/// two instants, its first occurrence (as PostgreSQL reads it), and counted (`ambiguous`) for the
/// run's warnings.
public enum LocalZone: Sendable, Equatable {
    case fixed(seconds: Int)
    case named(NamedZone)

    /// `UTC`, `Z`, `GMT`, `±hh:mm`, or an IANA name (`Europe/Berlin`); nil for anything else.
    public init?(_ text: String) {
        if let seconds = DateTimeFormat.offsetSeconds(text) {
            self = .fixed(seconds: seconds)
        } else if text.contains("/"), let zone = TimeZone(identifier: text) {
            self = .named(NamedZone(identifier: text, zone: zone))
        } else {
            return nil
        }
    }

    /// The UTC time of `local`, a time in this zone.
    func utc(_ local: CivilTime) throws(DateTimeFormat.Failure) -> CivilTime {
        switch self {
        case .fixed(let seconds): try local.utc(offsetSeconds: seconds)
        case .named(let zone): try zone.utc(local)
        }
    }

    /// Local times read as the earlier of their two instants so far (always 0 for a fixed offset).
    public var ambiguous: Int {
        if case .named(let zone) = self { return zone.counter.value.load(ordering: .relaxed) }
        return 0
    }
}

/// An IANA time zone, with the count of ambiguous local times it resolved.
public struct NamedZone: Sendable, Equatable {
    public let identifier: String
    let zone: TimeZone
    let counter = Counter()

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    public static func == (lhs: NamedZone, rhs: NamedZone) -> Bool { lhs.identifier == rhs.identifier }

    func utc(_ local: CivilTime) throws(DateTimeFormat.Failure) -> CivilTime {
        let seconds = Double(local.microsecondsSinceEpoch) / 1e6
        func offset(_ at: Double) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: at)) }
        // The offsets in force around that day; each is right when the instant it gives has it.
        var candidates = Set([offset(seconds - 86_400), offset(seconds), offset(seconds + 86_400)])
        candidates = candidates.filter { offset(seconds - Double($0)) == $0 }
        // The largest offset gives the earliest instant.
        guard let chosen = candidates.max() else {
            throw .init("the local time does not exist in \(identifier) (the clocks skipped it for daylight saving)")
        }
        if candidates.count > 1 { counter.value.add(1, ordering: .relaxed) }
        return try local.utc(offsetSeconds: chosen)
    }
}
