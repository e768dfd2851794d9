import ImporterTestSupport
import Dispatch
import ImporterSupport
import Testing

/// `CallingThreadExecutor.abandon`: the waiting thread returns the abandon's error without the
/// task's answer, and the first result stored wins.
@Suite struct CallingThreadExecutorTests {
    private struct Gone: Error {}

    @Test(.timeLimit(.minutes(1))) func anAbandonEndsTheWaitForATaskThatNeverAnswers() {
        let executor = CallingThreadExecutor<Int>()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { executor.abandon(with: Gone()) }
        #expect(throws: Gone.self) {
            try executor.run { await withUnsafeContinuation { (_: UnsafeContinuation<Int, Never>) in } }
        }
    }

    /// The first result stored wins: an abandon before the task's own answer.
    @Test func theFirstResultWins() {
        let executor = CallingThreadExecutor<Int>()
        #expect(throws: Gone.self) {
            try executor.run {
                executor.abandon(with: Gone())
                return 42
            }
        }
    }
}
