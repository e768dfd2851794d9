import ImporterTestSupport
import Dispatch
import Foundation
import ImporterSupport
import Testing

/// `Monitor`: threads handing values to each other wait for the state they need, wake at each
/// change, and a timed wait gives up.
@Suite struct MonitorTests {
    /// A bounded hand-off (at most two items waiting) between two threads: every item arrives,
    /// in order, and the producer never got ahead by more than the bound.
    @Test func aBoundedHandOffDeliversEveryItemInOrder() {
        struct Queue { var items: [Int] = []; var mostWaiting = 0 }
        let queue = Monitor(Queue())
        let count = 10_000
        let producer = Thread {
            for item in 0..<count {
                queue.wait { state -> Bool? in
                    guard state.items.count < 2 else { return nil }
                    state.items.append(item)
                    state.mostWaiting = max(state.mostWaiting, state.items.count)
                    return true
                }
            }
        }
        producer.start()
        var received: [Int] = []
        while received.count < count {
            received.append(queue.wait { $0.items.isEmpty ? nil : $0.items.removeFirst() })
        }
        #expect(received == Array(0..<count))
        #expect(queue.withLock { $0.mostWaiting } <= 2)
    }

    /// A change made under `withLock` on another thread wakes the waiting one.
    @Test func aChangeWakesTheWaitingThread() {
        let flag = Monitor(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { flag.withLock { $0 = true } }
        #expect(flag.wait { $0 ? "set" : nil } == "set")
    }

    /// A timed wait whose condition never holds gives up after its time, not before.
    @Test func aTimedWaitGivesUp() {
        let never = Monitor(0)
        let began = Date()
        let result = never.wait(seconds: 0.2) { $0 > 0 ? $0 : nil }
        let elapsed = Date().timeIntervalSince(began)
        #expect(result == nil && elapsed >= 0.19 && elapsed < 5, "\(elapsed) s")
        #expect(never.wait(seconds: 0) { _ in 7 } == 7, "a condition that holds returns at once")
    }
}
