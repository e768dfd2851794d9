import Dispatch
import Foundation
import ImporterKit
import Synchronization

/// SIGINT and SIGTERM for the commands that use a store.
///
/// The first signal raises `flag` (an import polls it between batches) and interrupts the SQL
/// statement running on the attached store, so the command's transaction rolls back and it exits
/// 130 (SIGINT) or 143 (SIGTERM) saying what was interrupted. A second signal, or the first when the
/// command has not stopped within `grace` (blocked reading its input, say), exits at once: the store
/// is safe either way, since SQLite never lets an uncommitted transaction reach it.
///
/// Signals arrive on a dispatch queue while the command runs on its own thread: the attached store
/// is behind a `Mutex`, and only its `interrupt()` is called from there (`StoreInterrupt`).
final class InterruptHandler: Sendable {
    /// The handler of the running command, for `StoreOptions` to attach the store it opens.
    @TaskLocal static var current: InterruptHandler?

    let flag = CancellationFlag()
    private let grace: Double
    private let store = Mutex<StoreInterrupt?>(nil)
    /// Kept only to cancel them in `deinit`.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    init(grace: Double = 3) {
        self.grace = grace
        sources.withLock { sources in
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.received(number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    deinit {
        sources.withLock { for source in $0 { source.cancel() } }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// The store whose running statement a signal interrupts.
    func attach(_ store: Store) {
        let interrupt = StoreInterrupt(store: store)
        self.store.withLock { $0 = interrupt }
    }

    private func received(_ number: Int32) {
        let status = 128 + number
        guard flag.raised == nil else {
            FileHandle.standardError.write(Data("importer: \(Self.name(number)) again: exiting at once (the store keeps its last committed state)\n".utf8))
            _exit(status)
        }
        flag.raise(number)
        FileHandle.standardError.write(Data("importer: \(Self.name(number)): stopping and rolling back (send it again to exit at once)\n".utf8))
        store.withLock { $0?.interrupt() }
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
            FileHandle.standardError.write(Data("importer: still busy \(self.grace) s after \(Self.name(number)): exiting (the store keeps its last committed state)\n".utf8))
            _exit(status)
        }
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}

/// The one call a signal's thread makes on the command's store.
///
/// Safe unchecked: the wrapped `Store` is not Sendable because its other methods must stay on the
/// command's thread; `interrupt()`, the only one reachable through this wrapper, is made to be
/// called from another thread while that thread runs a statement (SQLite: `sqlite3_interrupt`;
/// PostgreSQL: closing the connection, whose state is behind locks and atomics).
private struct StoreInterrupt: @unchecked Sendable {
    private let store: Store

    init(store: Store) { self.store = store }

    func interrupt() { store.interrupt() }
}
