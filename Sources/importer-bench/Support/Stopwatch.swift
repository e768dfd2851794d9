/// Wall-clock seconds of a piece of work (`ContinuousClock`).
enum Stopwatch {
    static func seconds<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let clock = ContinuousClock()
        let began = clock.now
        let result = try body()
        let elapsed = began.duration(to: clock.now).components
        return (result, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }
}
