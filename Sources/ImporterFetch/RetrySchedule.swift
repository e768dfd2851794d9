/// When to try a request again: exponential backoff with full jitter (the delay before attempt
/// `n + 1` is random in `0 ... min(cap, base · 2ⁿ)`), a server's `Retry-After` honoured as a floor,
/// all within a deadline: no attempt starts, and no wait is planned, past it.
public struct RetrySchedule: Sendable {
    public var base = 0.5
    public var cap = 30.0
    /// Seconds from the first attempt after which no attempt starts.
    public var deadline: Double

    public init(deadline: Double, base: Double = 0.5, cap: Double = 30) {
        self.deadline = deadline
        self.base = base
        self.cap = cap
    }

    /// The wait before the next attempt after `attempts` failed ones, `elapsed` seconds since the
    /// first began; nil when the next attempt could not start before the deadline.
    public func delay(afterAttempts attempts: Int, elapsed: Double, retryAfter: Double?,
                      random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Double? {
        let ceiling = min(cap, base * Double(1 << min(attempts - 1, 30)))
        let wait = max(random(0 ... ceiling), retryAfter ?? 0)
        return elapsed + wait < deadline ? wait : nil
    }
}
