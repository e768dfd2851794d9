/// A look-back for a URL value (`lag: 30d` under `url-values`): the run fetches from the cursor
/// less the lag (plus it, for a `min` cursor), so that records the upstream revised inside that
/// window are read again; those it did not revise write nothing.
public enum URLValueLag: Sendable, Equatable, CustomStringConvertible {
    /// For a date or datetime cursor: `30d`, `12h`, `90m`, `45s`.
    case seconds(Int)
    /// For an integer or real cursor: a number.
    case amount(Double)

    static let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// `30d`, `12h`, `90m`, `45s` or a number; nil for anything else (or a negative lag).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, let seconds = Self.units.first(where: { $0.0 == unit })?.1,
           let count = Int(trimmed.dropLast()), count >= 0 {
            self = .seconds(count * seconds)
        } else if let number = Double(trimmed), number >= 0, number.isFinite {
            self = .amount(number)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .seconds(let seconds):
            for (unit, size) in Self.units where seconds % size == 0 { return "\(seconds / size)\(unit)" }
            return "\(seconds)s"
        case .amount(let amount):
            return amount == amount.rounded() && abs(amount) < 1e15 ? String(Int64(amount)) : String(amount)
        }
    }

    /// Why the lag cannot move a cursor of `type`, or nil when it can.
    public func problem(for type: AttributeType) -> String? {
        switch (self, type) {
        case (.seconds(let seconds), .date):
            return seconds % 86_400 == 0 ? nil : "a date moves by whole days ('\(description)' is not)"
        case (.seconds, .datetime), (.amount, .integer), (.amount, .real):
            return nil
        case (.seconds, _):
            return "a duration moves a date or datetime, not \(type.rawValue): give a number"
        case (.amount, _):
            return "a number moves an integer or real, not \(type.rawValue): give a duration such as 30d"
        }
    }

    /// `value` (a stored cursor of `type`) moved back by the lag (forward when `forward`); nil when
    /// it cannot be read as that type.
    public func shift(_ value: Value, type: AttributeType, forward: Bool) -> Value? {
        let sign = forward ? 1 : -1
        switch (self, value) {
        case (.amount(let amount), .integer(let number)):
            return type == .integer && amount == amount.rounded() ? .integer(number + Int64(sign) * Int64(amount)) : .real(Double(number) + Double(sign) * amount)
        case (.amount(let amount), .real(let number)):
            return .real(number + Double(sign) * amount)
        case (.seconds(let seconds), .text(let text)):
            guard let time = CivilTime(stored: text) else { return nil }
            let shifted = CivilTime(microsecondsSinceEpoch: time.microsecondsSinceEpoch + sign * seconds * 1_000_000)
            var output: [UInt8] = []
            shifted.append(to: &output, includeTime: type == .datetime)
            return .text(String(decoding: output, as: UTF8.self))
        default:
            return nil
        }
    }
}

extension CivilTime {
    /// A stored date or datetime (`YYYY-MM-DD`, `YYYY-MM-DD hh:mm:ss[.fff[fff]]`); nil otherwise.
    init?(stored text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
        guard bytes.count > 10 else { return }
        guard bytes.count >= 19, let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        (self.hour, self.minute, self.second) = (hour, minute, second)
        if bytes.count > 20, let fraction = number(20..<bytes.count) {
            var micro = fraction
            for _ in 0..<(6 - (bytes.count - 20)) { micro *= 10 }
            microsecond = micro
        }
    }
}
