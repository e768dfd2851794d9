import Foundation
import Logging
import PostgresNIO

/// The batches a connection COPies: gathered into chunks of about `chunkBytes`, each chunk one
/// `COPY … FROM STDIN`, run in order on a task of their own, so that the caller encodes the next
/// batches while the server takes the last chunk. `send` returns at once, blocking only while
/// `depth` chunks (the one being copied included) wait; `finish` waits until every batch sent is
/// in its table. Owned by one `BlockingConnection`, which finishes it before any other request.
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
/// Invariant: after an error (a row the server refused, a lost connection) nothing more is copied;
/// the queued and gathered chunks are dropped, and the next `send` or `finish` throws the error once. The
/// copies run as a task on `DispatchTaskExecutor`, never on the cooperative pool (see
/// `BlockingConnection.blocking`), and never block its queue.
final class CopyQueue: @unchecked Sendable {
    struct Failure: Error {
        let table: String
        let error: any Error
    }

    private struct Item {
        let table: String
        let columns: [String]
        var data: ByteBuffer
    }

    private let connection: PostgresConnection
    private let logger: Logger
    private let depth: Int
    private let chunkBytes: Int
    /// Guards the state below and signals every change of it.
    private let condition = NSCondition()
    /// The chunk being gathered.
    private var gathering: Item?
    /// The chunks waiting for the task, in order.
    private var items: [Item] = []
    /// The chunk being copied.
    private var inFlight: Item?
    /// A task is draining `items` (it stops when they run out).
    private var running = false
    private var failure: Failure?
    /// Set by `discard(timeout:closing:)`: the connection is being closed; nothing more is
    /// copied, and every later call throws.
    private var closed = false

    /// `chunkBytes`: 2 MiB, about 30,000 fireball records: at most three chunks (gathered,
    /// queued, being copied) are held.
    init(connection: PostgresConnection, logger: Logger, depth: Int = 2, chunkBytes: Int = 2 << 20) {
        self.connection = connection
        self.logger = logger
        self.depth = depth
        self.chunkBytes = chunkBytes
    }

    private static func closedFailure(_ table: String) -> Failure { Failure(table: table, error: PostgresNIO.PostgresError.connectionClosed) }

    /// Adds `data` (whole COPY text lines) for `table`'s `columns` to the chunk being gathered,
    /// and queues the chunk when it is full (or goes to another table); blocks while `depth`
    /// chunks wait. Throws the failure of an earlier copy.
    func send(into table: String, columns: [String], data: ByteBuffer) throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
        if closed { throw Self.closedFailure(table) }
        if let chunk = gathering, chunk.table != table || chunk.columns != columns { try queueGathered() }
        if let failure = takeFailure() { throw failure }
        var chunk = gathering ?? Item(table: table, columns: columns, data: ByteBuffer())
        gathering = nil
        var data = data
        chunk.data.writeBuffer(&data)
        gathering = chunk
        if chunk.data.readableBytes >= chunkBytes { try queueGathered() }
    }

    /// Waits until every batch sent is copied; throws the failure of a copy.
    func finish() throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
        if gathering != nil { try queueGathered() }
        while running { condition.wait() }
        if let failure = takeFailure() { throw failure }
        if closed { throw Self.closedFailure(inFlight?.table ?? "") }
    }

    /// Queues the gathered chunk for the task, starting it when idle; blocks while `depth`
    /// chunks (the one being copied included) wait. Call with the lock held.
    private func queueGathered() throws(Failure) {
        while items.count + (inFlight == nil ? 0 : 1) >= depth, failure == nil, !closed { condition.wait() }
        if let failure = takeFailure() { throw failure }
        if closed { throw Self.closedFailure(gathering?.table ?? "") }
        guard let chunk = gathering else { return }
        gathering = nil
        items.append(chunk)
        if !running {
            running = true
            Task(executorPreference: DispatchTaskExecutor.shared) { await self.drain() }
        }
    }

    /// Drops the chunks not yet being copied and waits, up to `timeout` seconds, for the one
    /// being copied. For a rollback, forgets any failure; with `closing` (the connection is being
    /// closed), nothing is copied any more and every later call throws. Returns whether no copy
    /// runs any more.
    @discardableResult
    func discard(timeout: Double, closing: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if closing { closed = true }
        gathering = nil
        items.removeAll()
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while running, condition.wait(until: deadline) {}
        if !closing { failure = nil }
        return !running
    }

    /// The failure, once: cleared when thrown. Call with the lock held.
    private func takeFailure() -> Failure? {
        defer { failure = nil }
        return failure
    }

    /// Takes the next chunk to copy; when there is none, the task stops running (in the same
    /// critical section, so that a `send` meanwhile starts a new one).
    private func next() -> Item? {
        condition.withLock {
            inFlight = nil
            guard !closed, !items.isEmpty else {
                running = false
                condition.broadcast()
                return nil
            }
            inFlight = items.removeFirst()
            condition.broadcast()
            return inFlight
        }
    }

    /// `name` with its double quotes doubled, for postgres-nio to put between double quotes.
    static func escaped(_ name: String) -> String { name.replacingOccurrences(of: "\"", with: "\"\"") }

    /// Copies the queued chunks in order until none is left or one fails.
    private func drain() async {
        while let item = next() {
            do {
                // postgres-nio puts the names between double quotes as they are: a quote inside
                // a name (an attribute may have one) is doubled here.
                try await connection.copyFrom(table: Self.escaped(item.table), columns: item.columns.map(Self.escaped), logger: logger) { writer in
                    try await writer.write(item.data)
                }
            } catch {
                condition.withLock {
                    failure = Failure(table: item.table, error: error)
                    items.removeAll()
                    gathering = nil
                    condition.broadcast()
                }
            }
        }
    }
}
