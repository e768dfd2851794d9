import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// The delivery loop against a scripted receiver: the token moves only past what was received,
/// a refusal stops where it is, temporary failures are retried with the same id, transactions
/// with nothing for the consumer are passed over, and a held consumer lock is waited for.
@Suite struct DeliveryLoopTests {
    /// Answers each attempt with the next scripted outcome (then `.delivered`), recording it.
    final class ScriptedReceiver: Receiver {
        var outcomes: [ReceiverOutcome]
        var seen: [DeliveryAttempt] = []
        var bodies: [String] = []

        init(_ outcomes: [ReceiverOutcome] = []) { self.outcomes = outcomes }

        func deliver(_ delivery: Delivery, within seconds: Double) -> ReceiverOutcome {
            seen.append(delivery.attempt)
            bodies.append(String(decoding: (try? delivery.payload.bytes()) ?? [], as: UTF8.self))
            return outcomes.isEmpty ? .delivered : outcomes.removeFirst()
        }

        func close() {}
    }

    static let rows = [#"["2024-01-01 00:00:00","1.2","0.1","10","N","20","E",null,"15"]"#,
                       #"["2024-02-01 00:00:00","2.5","0.2","11","S","21","E",null,"16"]"#,
                       #"["2024-03-01 00:00:00","3.5","0.3","12","N","22","W",null,"17"]"#]

    /// A store with three transactions and the external consumer `mailer` (filtered to
    /// `entities`) from the beginning.
    static func store(in directory: TemporaryDirectory, entities: [String] = []) throws -> Store {
        let path = directory.path("store.sqlite")
        for count in 1...3 {
            try importFeeds([try directory.write("feed-\(count).json", fireballFeed(Array(rows.prefix(count))))], into: path)
        }
        let store = try Store(path: path)
        try store.write { try $0.addConsumer(Consumer(name: "mailer", kind: .external, tokenNumber: 0, entities: entities)) }
        return store
    }

    static func token(_ store: Store) throws -> Int64 {
        try store.read { try $0.consumer(named: "mailer").tokenNumber }
    }

    @Test func aRefusalStopsThereAndTheRerunDeliversEverythingUnderTheSameIds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let refusing = ScriptedReceiver([.delivered, .permanent("the command exited 1: inbox full")])
        #expect(throws: DeliveryError.self) { try DeliveryLoop(store: store, consumer: "mailer", receiver: refusing).run() }
        #expect(refusing.seen.map(\.transaction) == [1, 2])
        #expect(try Self.token(store) == 1, "past the received one, before the refused one")
        do { _ = try DeliveryLoop(store: store, consumer: "mailer", receiver: ScriptedReceiver([.permanent("no")])).run() } catch let error as DeliveryError {
            #expect(error.exitStatus == .badInput && error.description.contains("transaction 2") && error.description.contains(store.token(2).description))
        }
        let taking = ScriptedReceiver()
        let summary = try DeliveryLoop(store: store, consumer: "mailer", receiver: taking).run()
        #expect(summary.delivered == 2 && summary.through == 3)
        #expect(taking.seen.map(\.transaction) == [2, 3] && taking.seen.first?.deliveryID == refusing.seen.last?.deliveryID)
        #expect(try Self.token(store) == 3)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(taking.bodies[0].utf8)) as? [String: Any])
        #expect(document["delivery_id"] as? String == taking.seen[0].deliveryID && document["number"] as? Int == 2)
        #expect((document["changes"] as? [[String: Any]])?.count == 1)
    }

    @Test func temporaryFailuresAreRetriedWithTheSameIdHonouringRetryAfter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let flaky = ScriptedReceiver([.temporary("exit 75", retryAfter: nil), .temporary("HTTP 429", retryAfter: 7)])
        var loop = DeliveryLoop(store: store, consumer: "mailer", receiver: flaky)
        var waits: [Double] = []
        loop.sleep = { waits.append($0) }
        loop.deadline = FetchDuration(milliseconds: 60_000)
        let summary = try loop.run()
        #expect(summary.delivered == 3 && flaky.seen.map(\.transaction) == [1, 1, 1, 2, 3])
        #expect(Set(flaky.seen.prefix(3).map(\.deliveryID)).count == 1)
        #expect(waits.count == 2 && waits[0] <= 0.5 && waits[1] >= 7)
    }

    @Test func pastTheDeadlineItIsTryLaterWithTheTokenUnmoved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        var loop = DeliveryLoop(store: store, consumer: "mailer", receiver: ScriptedReceiver(Array(repeating: .temporary("HTTP 503", retryAfter: 5), count: 10)))
        loop.deadline = FetchDuration(milliseconds: 2000)
        loop.sleep = { _ in Issue.record("no wait past the deadline") }
        do {
            _ = try loop.run()
            Issue.record("expected tryLater")
        } catch let error as DeliveryError {
            guard case .tryLater(let attempt, let attempts, _, _) = error else { Issue.record("\(error)"); return }
            #expect(attempt.transaction == 1 && attempts == 1 && error.exitStatus == .locked)
        }
        #expect(try Self.token(store) == 0)
    }

    @Test func transactionsWithNothingForTheConsumerArePassedOver() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory, entities: ["Meteorite"])
        let receiver = ScriptedReceiver()
        let summary = try DeliveryLoop(store: store, consumer: "mailer", receiver: receiver).run()
        #expect(receiver.seen.isEmpty && summary.skipped == 3 && summary.delivered == 0)
        #expect(try Self.token(store) == 3)
    }

    @Test func aHeldConsumerLockIsBusyAfterTheWait() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let other = try Store(path: store.path)
        #expect(try other.consumerLocks.tryLockConsumer("mailer"))
        var loop = DeliveryLoop(store: store, consumer: "mailer", receiver: ScriptedReceiver())
        loop.lockWaitMilliseconds = 200
        #expect(throws: DeliveryError.busy(consumer: "mailer", waitedMilliseconds: 200)) { try loop.run() }
        other.consumerLocks.unlockConsumer("mailer")
        #expect(try loop.run().delivered == 3)
        #expect(try other.consumerLocks.tryLockConsumer("mailer"), "released after the run")
        other.consumerLocks.unlockConsumer("mailer")
    }
}
