import ImporterTestSupport
@testable import ImporterStorePostgres
import PostgresNIO
import Testing

/// `CopyQueueStateMachine` without a server: each transition's action, and the invariants (order,
/// at most `depth` chunks pending, a failure thrown once, nothing copied after a close).
@Suite struct CopyQueueStateMachineTests {
    private typealias Machine = CopyQueueStateMachine

    private static func bytes(_ count: Int) -> ByteBuffer { ByteBuffer(repeating: UInt8(ascii: "x"), count: count) }

    private struct Refused: Error {}

    /// The chunk the copying task is handed next, or nil when it stops.
    private static func next(_ machine: inout Machine) -> Machine.Chunk? {
        if case .copy(let chunk) = machine.nextChunk() { return chunk }
        return nil
    }

    @Test func batchesAreGatheredUntilAChunkIsFullThenCopiedInOrder() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        guard case .done(startCopying: false) = machine.send(into: "a", columns: ["n"], data: Self.bytes(4)) else {
            Issue.record("a batch below the chunk size is only gathered"); return
        }
        guard case .done(startCopying: true) = machine.send(into: "a", columns: ["n"], data: Self.bytes(6)) else {
            Issue.record("a full chunk is queued and starts the copying task"); return
        }
        #expect(machine.isCopying && machine.pending == 1)
        guard case .done(startCopying: false) = machine.send(into: "a", columns: ["n"], data: Self.bytes(10)) else {
            Issue.record("the task runs already"); return
        }
        let first = Self.next(&machine), second = Self.next(&machine)
        #expect(first?.data.readableBytes == 10 && second?.data.readableBytes == 10)
        let last = Self.next(&machine)
        #expect(last == nil && !machine.isCopying, "the task stops when nothing is queued")
    }

    @Test func anotherTableQueuesTheGatheredChunk() {
        var machine = Machine(depth: 2, chunkBytes: 100)
        _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(3))
        guard case .done(startCopying: true) = machine.send(into: "b", columns: ["n"], data: Self.bytes(5)) else {
            Issue.record("the chunk for a is queued when b's batch comes"); return
        }
        guard case .wait(startCopying: false) = machine.finish() else { Issue.record("b's chunk is queued, then waited for"); return }
        guard case .copy(let first) = machine.nextChunk() else { Issue.record("a's chunk first"); return }
        #expect(first.table == "a")
        guard case .wait = machine.finish() else { Issue.record("b's chunk is still to copy"); return }
        let second = Self.next(&machine)
        #expect(second?.table == "b")
        guard case .wait = machine.finish() else { Issue.record("b's chunk is being copied"); return }
        guard case .stop = machine.nextChunk() else { Issue.record("nothing left"); return }
        #expect(!machine.isCopying, "the task's end lets the finishing caller through")
        guard case .done = machine.finish() else { Issue.record("everything is copied"); return }
    }

    /// A binary chunk is framed once (header first, trailer when queued) around the batches it
    /// gathers; text and binary batches for the same table go in separate chunks.
    @Test func aBinaryChunkIsFramedAroundItsBatchesAndKeptApartFromText() {
        var machine = Machine(depth: 3, chunkBytes: 100)
        _ = machine.send(into: "a", columns: ["n"], binary: true, data: Self.bytes(3))
        _ = machine.send(into: "a", columns: ["n"], binary: true, data: Self.bytes(4))
        _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(5))
        _ = machine.finish()
        let binary = Self.next(&machine), text = Self.next(&machine)
        #expect(binary?.binary == true && text?.binary == false)
        #expect(binary.map { Array(buffer: $0.data) } == CopyBinary.header + Array(repeating: UInt8(ascii: "x"), count: 7) + CopyBinary.trailer)
        #expect(text?.data.readableBytes == 5)
        #expect(CopyQueue.copyTarget(of: CopyChunk(table: #"t"x"#, columns: ["a", #"b"c"#], binary: true, data: ByteBuffer()))
            == (#"t""x" ("a", "b""c") FROM STDIN WITH (FORMAT binary) --"#, []))
    }

    /// With `depth` chunks pending, a full chunk stays gathered and the next send waits (taking
    /// nothing) until the task takes one.
    @Test func aSendWaitsWhileDepthChunksArePending() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        for _ in 0..<3 { _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(10)) }
        #expect(machine.pending == 2)
        guard case .wait = machine.send(into: "a", columns: ["n"], data: Self.bytes(1)) else {
            Issue.record("no room: the sender waits"); return
        }
        #expect(machine.pending == 2, "the waiting send took nothing")
        _ = Self.next(&machine)
        guard case .wait = machine.send(into: "a", columns: ["n"], data: Self.bytes(1)) else {
            Issue.record("the chunk in flight still counts"); return
        }
        machine.chunkFinished()
        guard case .done(startCopying: false) = machine.send(into: "a", columns: ["n"], data: Self.bytes(1)) else {
            Issue.record("room now: the full chunk is queued and the batch gathered"); return
        }
        #expect(machine.pending == 2)
        guard case .wait = machine.finish() else { Issue.record("no room for the gathered byte yet"); return }
        let second = Self.next(&machine)
        #expect(second?.data.readableBytes == 10)
        let third = Self.next(&machine)
        #expect(third?.data.readableBytes == 10)
        machine.chunkFinished()
        guard case .wait(startCopying: false) = machine.finish() else { Issue.record("the byte is queued"); return }
        let fourth = Self.next(&machine)
        #expect(fourth?.data.readableBytes == 1, "the send that waited took its byte once")
    }

    @Test func aFailureDropsTheQueueAndIsThrownOnce() {
        var machine = Machine(depth: 3, chunkBytes: 10)
        for _ in 0..<3 { _ = machine.send(into: "d", columns: ["n"], data: Self.bytes(10)) }
        _ = machine.send(into: "d", columns: ["n"], data: Self.bytes(2))
        let inFlight = Self.next(&machine)
        #expect(inFlight != nil)
        guard case .wait = machine.finish() else { Issue.record("the finish waits for the copies"); return }
        machine.chunkFailed(Refused())
        #expect(machine.pending == 0, "the queued chunks are dropped")
        let next = Self.next(&machine)
        #expect(next == nil && !machine.isCopying)
        guard case .fail(let failure) = machine.finish() else { Issue.record("the failure is thrown"); return }
        #expect(failure.table == "d" && failure.error is Refused)
        guard case .done = machine.finish() else { Issue.record("once"); return }
        guard case .done = machine.send(into: "d", columns: ["n"], data: Self.bytes(1)) else { Issue.record("usable again"); return }
    }

    @Test func aSendAfterAFailureThrowsItAndTakesNothing() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        _ = machine.send(into: "d", columns: ["n"], data: Self.bytes(10))
        _ = Self.next(&machine)
        machine.chunkFailed(Refused())
        guard case .fail(let failure) = machine.send(into: "d", columns: ["n"], data: Self.bytes(1)) else {
            Issue.record("the earlier failure"); return
        }
        #expect(failure.error is Refused)
        guard case .stop = machine.nextChunk() else { Issue.record("the failed send queued nothing"); return }
    }

    /// A rollback drops what is not in flight, waits for the chunk in flight and forgets a failure.
    @Test func aDiscardForARollbackForgetsTheFailure() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        for _ in 0..<2 { _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(10)) }
        _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(3))
        _ = Self.next(&machine)
        guard case .wait = machine.finish() else { Issue.record("copies pending"); return }
        machine.discard(closing: false)
        #expect(machine.pending == 1, "only the chunk in flight is left")
        #expect(machine.isCopying)
        machine.chunkFailed(Refused())
        let next = Self.next(&machine)
        #expect(next == nil && !machine.isCopying)
        let idleAtEnd = machine.discardEnded(closing: false)
        #expect(idleAtEnd)
        guard case .done = machine.finish() else { Issue.record("the failure is forgotten"); return }
    }

    @Test func aCloseStopsTheCopiesAndRefusesEverything() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        for _ in 0..<2 { _ = machine.send(into: "e", columns: ["n"], data: Self.bytes(10)) }
        let inFlight = Self.next(&machine)
        #expect(inFlight?.table == "e")
        machine.discard(closing: true)
        #expect(machine.isClosed && machine.pending == 1)
        machine.chunkFinished()
        guard case .stop = machine.nextChunk() else { Issue.record("nothing is copied after a close"); return }
        let idle = machine.discardEnded(closing: true)
        #expect(idle)
        guard case .fail(let failure) = machine.send(into: "e", columns: ["n"], data: Self.bytes(1)),
              case .connectionClosed? = failure.error as? PostgresNIO.PostgresError else { Issue.record("a send is refused"); return }
        guard case .fail = machine.finish() else { Issue.record("a finish is refused"); return }
        guard case .fail = machine.finish() else { Issue.record("every time"); return }
    }

    @Test func anIdleQueueFinishesAtOnce() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        guard case .done = machine.finish() else { Issue.record("nothing to wait for"); return }
        machine.discard(closing: false)
        let idleAtEnd = machine.discardEnded(closing: false)
        #expect(!machine.isCopying && idleAtEnd)
    }

    /// A lost connection fails a caller waiting for a chunk whose answer may never come, and
    /// every call from then on; a copying task that does come back copies nothing more.
    @Test func aLostConnectionFailsTheWaitersWithoutTheCopysAnswer() {
        var machine = Machine(depth: 2, chunkBytes: 10)
        _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(10))
        _ = machine.send(into: "a", columns: ["n"], data: Self.bytes(10))
        #expect(Self.next(&machine) != nil, "the first chunk is in flight")
        guard case .wait = machine.finish() else { Issue.record("the finishing caller waits for the copy"); return }
        machine.connectionLost()
        #expect(!machine.isCopying && machine.pending == 0)
        guard case .fail = machine.finish() else { Issue.record("finish fails once the connection is lost"); return }
        guard case .fail = machine.send(into: "a", columns: ["n"], data: Self.bytes(1)) else {
            Issue.record("send fails once the connection is lost"); return
        }
        #expect(Self.next(&machine) == nil, "a late copying task stops")
    }

    /// A copy's failure that a close overtakes is still thrown, once, by the next finish; every
    /// call after it fails as closed.
    @Test func aFailureBeforeACloseIsThrownOnceThenTheCloseIs() {
        struct Refused: Error {}
        var machine = Machine(depth: 2, chunkBytes: 10)
        _ = machine.send(into: "t", columns: ["n"], data: Self.bytes(10))
        #expect(Self.next(&machine)?.table == "t")
        machine.chunkFailed(Refused())
        machine.discard(closing: true)
        if case .closed(unthrown: let failure?) = machine.phase { #expect(failure.table == "t") } else { Issue.record("closed, failure kept: \(machine.phase)") }
        guard case .stop = machine.nextChunk() else { Issue.record("the task stops"); return }
        guard case .fail(let first) = machine.finish(), first.error is Refused else { Issue.record("the copy's failure first"); return }
        guard case .fail(let then) = machine.finish(), case .connectionClosed? = then.error as? PostgresNIO.PostgresError else {
            Issue.record("then the close"); return
        }
        if case .closed(unthrown: nil) = machine.phase {} else { Issue.record("nothing left to throw: \(machine.phase)") }
    }
}
