import ImporterSupport
import Logging
import PostgresNIO

/// The batches a connection COPies: gathered into chunks of about `chunkBytes`, each chunk one
/// `COPY … FROM STDIN`, run in order on a task of their own, so that the caller encodes the next
/// batches while the server takes the last chunk. `send` returns at once, blocking only while
/// `depth` chunks (the one being copied included) wait; `finish` waits until every batch sent is
/// in its table. Owned by one `BlockingConnection`, which finishes it before any other request.
/// The rules are `CopyQueueStateMachine`'s; this class runs its actions (the task, the waits).
///
/// One COPY per chunk, each with one write: postgres-nio (1.33) drops a write that waits for the
/// channel to drain when the server reports an error meanwhile (the task would never end), and
/// closing the connection while a COPY takes data traps; a single write right after the COPY
/// starts, on a channel the previous COPY left empty, never waits, and the COPY then only awaits
/// its result, where both an error and a close are answered. Each chunk is also its own statement,
/// so `statement_timeout` bounds a chunk, not the whole feed. Chunks of 2 MiB, not batches: fewer,
/// larger COPYs, overlapping the encoding of the next batch, were the fastest of the ways tried
/// (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
///
/// The copies run as a task on the connection's event loop (`EventLoopTaskExecutor`), never on
/// the cooperative pool (see `BlockingConnection.blocking`), and never block it: only callers
/// wait, on the queue's `Monitor`, which wakes them at each change of state.
///
/// A closed connection: postgres-nio 1.33 traps when a COPY's write, end or failure reaches a
/// connection that has closed (`Copy mode is only supported for extended queries`), as when the
/// server ends the session between the COPY's start and its data. So each of those calls is made
/// on the loop in the job that has just checked the connection is open, and a copy that finds it
/// closed is parked for good instead of going on; the close itself fails every waiting and later
/// call (`connectionLost`).
final class CopyQueue: Sendable {
    typealias Failure = CopyFailure
    private typealias Machine = CopyQueueStateMachine

    private let connection: PostgresConnection
    private let logger: Logger
    private let state: Monitor<Machine>
    private let executor: EventLoopTaskExecutor

    /// `chunkBytes`: 2 MiB, about 30,000 fireball records: at most three chunks (gathered,
    /// queued, being copied) are held.
    init(connection: PostgresConnection, logger: Logger, depth: Int = 2, chunkBytes: Int = 2 << 20) {
        self.connection = connection
        self.logger = logger
        state = Monitor(Machine(depth: depth, chunkBytes: chunkBytes))
        executor = EventLoopTaskExecutor(connection.eventLoop)
        connection.closeFuture.whenComplete { [weak self] _ in self?.connectionLost() }
    }

    /// Adds `data` (whole COPY rows, `binary`: in `CopyBinary`'s format, else text lines) for
    /// `table`'s `columns` to the chunk being gathered, and queues the chunk when it is full (or goes
    /// to another table or format); blocks while `depth` chunks wait. Throws the failure of an
    /// earlier copy.
    func send(into table: String, columns: [String], binary: Bool = false, data: ByteBuffer) throws(Failure) {
        let action = state.wait { machine -> Machine.SendAction? in
            let action = machine.send(into: table, columns: columns, binary: binary, data: data)
            if case .wait = action { return nil }
            return action
        }
        switch action {
        case .done(let startCopying): if startCopying { startCopyingTask() }
        case .wait: break
        case .fail(let failure): throw failure
        }
    }

    /// Waits until every batch sent is copied; throws the failure of a copy.
    func finish() throws(Failure) {
        let action = state.wait { machine -> Machine.FinishAction? in
            let action = machine.finish()
            guard case .wait(let startCopying) = action else { return action }
            // Starting the task only enqueues its first job on the loop, which takes the lock after this wait releases it.
            if startCopying { startCopyingTask() }
            return nil
        }
        if case .fail(let failure) = action { throw failure }
    }

    /// Drops the chunks not yet being copied and waits, up to `timeout` seconds, for the one
    /// being copied. For a rollback, forgets any failure; with `closing` (the connection is being
    /// closed), nothing is copied any more and every later call throws. Returns whether no copy
    /// runs any more.
    @discardableResult
    func discard(timeout: Double, closing: Bool = false) -> Bool {
        state.withLock { $0.discard(closing: closing) }
        _ = state.wait(seconds: timeout) { machine -> Bool? in machine.isCopying ? nil : true }
        return state.withLock { $0.discardEnded(closing: closing) }
    }

    /// The connection has closed: every waiting and later call fails at once, even when the copy
    /// in flight never ends (its task is then parked).
    private func connectionLost() {
        state.withLock { $0.connectionLost() }
    }

    /// `name` with its double quotes doubled, for postgres-nio to put between double quotes.
    static func escaped(_ name: String) -> String { name.replacingOccurrences(of: "\"", with: "\"\"") }

    /// The `table` and `columns` arguments of postgres-nio's `copyFrom` for `chunk`. postgres-nio
    /// 1.33 writes `COPY "<table>" ("<column>", …) FROM STDIN WITH (FORMAT text)` and offers no
    /// other format; for a binary chunk the table argument closes the name itself, gives the column
    /// list and `FORMAT binary`, and ends in a comment that holds the rest (the library appends no
    /// line break, and the names' own are inside their quotes). Pinned by `CopyBinaryTests`, which
    /// a postgres-nio that quotes the argument otherwise fails.
    static func copyTarget(of chunk: CopyChunk) -> (table: String, columns: [String]) {
        guard chunk.binary else { return (escaped(chunk.table), chunk.columns.map(escaped)) }
        let columns = chunk.columns.map { "\"\(escaped($0))\"" }.joined(separator: ", ")
        return ("\(escaped(chunk.table))\" (\(columns)) FROM STDIN WITH (FORMAT binary) --", [])
    }

    private func startCopyingTask() {
        Task(executorPreference: executor) { await self.copyChunks() }
    }

    /// Never returns once the connection has closed (see the type's comment): the COPY's next
    /// call would trap. Runs on the loop, where `isClosed` is settled between events.
    private func parkIfClosed() async {
        guard connection.isClosed else { return }
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }

    /// Copies the queued chunks in order until none is left or one fails.
    private func copyChunks() async {
        while true {
            let chunk: CopyChunk
            switch state.withLock({ $0.nextChunk() }) {
            case .stop: return
            case .copy(let next): chunk = next
            }
            do {
                // postgres-nio puts the names between double quotes as they are: a quote inside
                // a name (an attribute may have one) is doubled here.
                let target = Self.copyTarget(of: chunk)
                try await connection.copyFrom(table: target.table, columns: target.columns, logger: logger) { writer in
                    await parkIfClosed()
                    do {
                        try await writer.write(chunk.data)
                    } catch {
                        await parkIfClosed()
                        throw error
                    }
                    await parkIfClosed()
                }
                state.withLock { $0.chunkFinished() }
            } catch {
                state.withLock { $0.chunkFailed(error) }
            }
        }
    }
}
