import PostgresNIO

/// A chunk of COPY rows for one table's columns, in one format: one `COPY … FROM STDIN`. A binary
/// chunk's data begins with the format's header and, once queued, ends with its trailer.
struct CopyChunk: Sendable {
    let table: String
    let columns: [String]
    let binary: Bool
    var data: ByteBuffer
}

/// A COPY the server refused, or one the connection lost or closed before it ran.
struct CopyFailure: Error {
    let table: String
    let error: any Error
}


/// The state of a `CopyQueue`, without locks, threads or a server: each transition returns what
/// the queue must do (start the copying task, copy a chunk, throw, wait).
///
/// Chunks flow gathered → queued → in flight. At most `depth` chunks are queued or in flight; the
/// gathered one is queued when it reaches `chunkBytes`, when a batch goes to another table, or on
/// `finish`. A caller that must wait for room (or for the copies to end) is told to wait, and
/// tries its transition again at the next change of state (`CopyQueue`'s `Monitor` wakes it).
///
/// Invariants: after a failure nothing more is copied, the queued and gathered chunks are dropped,
/// and the failure is thrown once (by the next `send` or `finish`); once discarded for a close,
/// nothing is copied and every later `send` or `finish` fails; at most one copying task runs.
struct CopyQueueStateMachine: Sendable {
    typealias Chunk = CopyChunk
    typealias Failure = CopyFailure

    enum SendAction {
        /// The data is taken; start the copying task when asked.
        case done(startCopying: Bool)
        /// Nothing is taken: at the next change, send the same data again.
        case wait
        case fail(Failure)
    }

    enum FinishAction {
        case done
        /// At the next change, call `finish` again.
        case wait(startCopying: Bool)
        case fail(Failure)
    }

    enum NextAction {
        case copy(Chunk)
        /// The copying task ends (nothing queued, or closed).
        case stop
    }

    /// Whether rows are taken: `open`; after a copy failed, `failed` until the failure is
    /// thrown (nothing is copied meanwhile); `closed` for good once discarded for a close or the
    /// connection lost, with a failure not thrown yet, if any (it is thrown first).
    enum Phase {
        case open
        case failed(Failure)
        case closed(unthrown: Failure?)
    }

    /// The copying task: none, or one running, with the chunk it copies (nil between chunks).
    enum Copying {
        case idle
        case running(inFlight: Chunk?)
    }

    let depth: Int
    let chunkBytes: Int
    private var gathering: Chunk?
    private var queued: [Chunk] = []
    private(set) var phase = Phase.open
    private(set) var copying = Copying.idle

    init(depth: Int, chunkBytes: Int) {
        self.depth = max(depth, 1)
        self.chunkBytes = chunkBytes
    }

    /// A copying task runs (it stops when `queued` runs out).
    var isCopying: Bool {
        if case .running = copying { true } else { false }
    }

    var isClosed: Bool {
        if case .closed = phase { true } else { false }
    }

    private var inFlight: Chunk? {
        if case .running(let chunk) = copying { chunk } else { nil }
    }

    /// Chunks queued or in flight (the gathered one excluded).
    var pending: Int { queued.count + (inFlight == nil ? 0 : 1) }

    private var hasRoom: Bool { pending < depth }

    private static func closedFailure(_ table: String) -> Failure {
        Failure(table: table, error: PostgresNIO.PostgresError.connectionClosed)
    }

    /// Adds `data` (whole rows, `binary`: in `CopyBinary`'s format, else text) for `table`'s
    /// `columns` to the gathered chunk; the chunk gathered for another table or format is queued
    /// first (`wait` when there is no room for it), and a full one is queued when there is room
    /// (else by the next `send` or `finish`).
    mutating func send(into table: String, columns: [String], binary: Bool = false, data: ByteBuffer) -> SendAction {
        if isClosed { return .fail(Self.closedFailure(table)) }
        var startCopying = false
        if let chunk = gathering, chunk.table != table || chunk.columns != columns || chunk.binary != binary || chunk.data.readableBytes >= chunkBytes {
            if let failure = takeFailure() { return .fail(failure) }
            guard hasRoom else {
                return .wait
            }
            startCopying = queueGathered()
        }
        if let failure = takeFailure() { return .fail(failure) }
        var data = data
        if gathering == nil { gathering = Chunk(table: table, columns: columns, binary: binary, data: ByteBuffer(bytes: binary ? CopyBinary.header : [])) }
        gathering?.data.writeBuffer(&data)
        if let chunk = gathering, chunk.data.readableBytes >= chunkBytes, hasRoom { startCopying = queueGathered() || startCopying }
        return .done(startCopying: startCopying)
    }

    /// Queues the gathered chunk and waits until every chunk is copied; the failure of a copy.
    mutating func finish() -> FinishAction {
        var startCopying = false
        if gathering != nil, case .open = phase {
            guard hasRoom else {
                return .wait(startCopying: false)
            }
            startCopying = queueGathered()
        }
        if isCopying {
            return .wait(startCopying: startCopying)
        }
        if let failure = takeFailure() { return .fail(failure) }
        if isClosed { return .fail(Self.closedFailure(inFlight?.table ?? "")) }
        return .done
    }

    /// Drops the gathered and queued chunks (the one in flight goes on); with `closing`, nothing
    /// is copied any more.
    mutating func discard(closing: Bool) {
        if closing { close() }
        gathering = nil
        queued.removeAll()
    }

    /// The connection has closed: nothing is copied any more, and the chunk in flight no longer
    /// counts as copying (its answer may never come), so every waiting caller fails.
    mutating func connectionLost() {
        close()
        copying = .idle
        gathering = nil
        queued.removeAll()
    }

    private mutating func close() {
        switch phase {
        case .open: phase = .closed(unthrown: nil)
        case .failed(let failure): phase = .closed(unthrown: failure)
        case .closed: break
        }
    }

    /// The end of a discard for a rollback: a copy's failure is the rollback's cause or lost with
    /// it, so it is forgotten (unless closing: then every call fails anyway).
    mutating func discardEnded(closing: Bool) -> Bool {
        if !closing {
            switch phase {
            case .open: break
            case .failed: phase = .open
            case .closed: phase = .closed(unthrown: nil)
            }
        }
        return !isCopying
    }

    /// The copying task asks for its next chunk (the previous one done).
    mutating func nextChunk() -> NextAction {
        guard !isClosed, !queued.isEmpty else {
            copying = .idle
            return .stop
        }
        let chunk = queued.removeFirst()
        copying = .running(inFlight: chunk)
        return .copy(chunk)
    }

    /// The chunk in flight is in its table.
    mutating func chunkFinished() {
        if isCopying { copying = .running(inFlight: nil) }
    }

    /// The chunk in flight failed: nothing more is copied until the failure is thrown.
    mutating func chunkFailed(_ error: any Error) {
        let failure = Failure(table: inFlight?.table ?? "", error: error)
        switch phase {
        case .open, .failed: phase = .failed(failure)
        case .closed: phase = .closed(unthrown: failure)
        }
        if isCopying { copying = .running(inFlight: nil) }
        queued.removeAll()
        gathering = nil
    }

    /// Queues the gathered chunk (room checked by the caller); whether a copying task must start.
    private mutating func queueGathered() -> Bool {
        guard var chunk = gathering else { return false }
        gathering = nil
        if chunk.binary { chunk.data.writeBytes(CopyBinary.trailer) }
        queued.append(chunk)
        guard !isCopying else { return false }
        copying = .running(inFlight: nil)
        return true
    }

    /// The failure not thrown yet, now thrown: the queue takes rows again (unless closed).
    private mutating func takeFailure() -> Failure? {
        switch phase {
        case .open, .closed(unthrown: nil): return nil
        case .failed(let failure):
            phase = .open
            return failure
        case .closed(unthrown: let failure?):
            phase = .closed(unthrown: nil)
            return failure
        }
    }
}
